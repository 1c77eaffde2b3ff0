#!/usr/bin/env bash
# Resolves the jars of a Kafka 3.9 KRaft broker from Maven Central into a cache folder.
# Idempotent: once the jars are there, it does nothing. Offline first, then online.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$here/pom.xml")"
cache="${SHOAL_KAFKA_CACHE:-$root/.cache/kafka/$version}"
lib="$cache/lib"
marker="$cache/.complete"

if [ -f "$marker" ] && ls "$lib"/kafka_2.13-"$version".jar >/dev/null 2>&1; then
  echo "$lib"
  exit 0
fi

if ! command -v java >/dev/null 2>&1; then
  echo "Java 17 not found on PATH: the test broker needs it (Debian: apt-get install openjdk-17-jre-headless)" >&2
  exit 3
fi
java_major="$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)"
if [ -z "$java_major" ] || [ "$java_major" -lt 17 ]; then
  echo "Java 17 or newer is needed for the test broker, found: $(java -version 2>&1 | head -n 1)" >&2
  exit 3
fi
if ! command -v mvn >/dev/null 2>&1; then
  echo "Maven not found on PATH: it fetches the Kafka jars from Maven Central (Debian: apt-get install maven)" >&2
  exit 4
fi

mkdir -p "$lib"
plugin="org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies"
args=(-q -B -f "$here/pom.xml" "$plugin" -DincludeScope=runtime -DoutputDirectory="$lib")
if ! mvn -o "${args[@]}" >/dev/null 2>&1; then
  echo "fetching Kafka $version jars from Maven Central into $lib" >&2
  if ! mvn "${args[@]}" >&2; then
    echo "Maven could not fetch the Kafka $version jars (is Maven Central reachable?)" >&2
    exit 5
  fi
fi
touch "$marker"
echo "$lib"
