#!/usr/bin/env bash
# Resolves the jars of a Kafka 3.9 KRaft broker (pom.xml beside this file) from Maven
# Central into a cache folder, and prints that folder (the last line of stdout).
#   default cache: <repo>/.cache/kafka/<version>/lib    override: SHOAL_KAFKA_CACHE=<dir>
# Idempotent: a marker file records a complete copy; then it only checks Java and exits.
# Tries Maven offline first (the local repository may already hold everything), then online.
set -euo pipefail

# Only bash builtins until Java is found, so that even an empty PATH gets the message naming Java.
src="${BASH_SOURCE[0]}"
[[ $src == */* ]] || src="./$src"
here="$(cd "${src%/*}" && pwd)"
root="$(cd "$here/../.." && pwd)"
version=""
while IFS= read -r line || [[ -n $line ]]; do
  if [[ $line =~ \<kafka\.version\>([^<]+)\</kafka\.version\> ]]; then version="${BASH_REMATCH[1]}"; break; fi
done <"$here/pom.xml"
[[ -n $version ]] || { echo "no <kafka.version> in $here/pom.xml" >&2; exit 2; }
cache="${SHOAL_KAFKA_CACHE:-$root/.cache/kafka/$version}"
lib="$cache/lib"
marker="$cache/.complete"

# The broker runs on Java 17+, so say so now rather than when it fails to start.
if ! command -v java >/dev/null 2>&1; then
  echo "Java 17 not found on PATH: install openjdk-17-jre-headless (apt-get install openjdk-17-jre-headless)" >&2
  exit 3
fi
# The line naming the version (JAVA_TOOL_OPTIONS may put "Picked up ..." before it).
java_version="" java_major=""
while IFS= read -r line; do
  if [[ $line =~ version\ \"([0-9]+) ]]; then java_version="$line" java_major="${BASH_REMATCH[1]}"; break; fi
  [[ -n $java_version ]] || java_version="$line"
done < <(java -version 2>&1 || true)
if [ -z "$java_major" ] || [ "$java_major" -lt 17 ]; then
  echo "Java 17 not found on PATH (found: ${java_version:-nothing usable}): install openjdk-17-jre-headless (apt-get install openjdk-17-jre-headless)" >&2
  exit 3
fi

if [ -f "$marker" ] && [ -f "$lib/kafka_2.13-$version.jar" ]; then
  echo "$lib"
  exit 0
fi

if ! command -v mvn >/dev/null 2>&1; then
  echo "Maven not found on PATH: it fetches the Kafka $version jars from Maven Central; install maven (apt-get install maven)" >&2
  exit 4
fi

mkdir -p "$lib"
plugin="org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies"
args=(-q -B -f "$here/pom.xml" "$plugin" -DincludeScope=runtime -DoutputDirectory="$lib")
if ! mvn -o "${args[@]}" >/dev/null 2>&1; then
  echo "fetching the Kafka $version jars from Maven Central into $lib" >&2
  if ! mvn "${args[@]}" >&2; then
    echo "Maven could not fetch the Kafka $version jars (is Maven Central reachable? see the output above)" >&2
    exit 5
  fi
fi
if [ ! -f "$lib/kafka_2.13-$version.jar" ]; then
  echo "Maven finished but $lib/kafka_2.13-$version.jar is missing" >&2
  exit 5
fi
touch "$marker"
echo "$lib"
