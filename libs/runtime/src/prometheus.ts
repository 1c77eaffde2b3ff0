/** Prometheus' text exposition format (version 0.0.4): families of samples with HELP and TYPE. */

/** The Content-Type of a /metrics answer in this format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface Sample {
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge';
  readonly samples: readonly Sample[];
}

const escapeLabel = (value: string): string => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const escapeHelp = (value: string): string => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

const formatLabels = (labels: Readonly<Record<string, string>> | undefined): string => {
  const entries = Object.entries(labels ?? {});
  return entries.length === 0 ? '' : `{${entries.map(([key, value]) => `${key}="${escapeLabel(value)}"`).join(',')}}`;
};

export const prometheusText = (families: readonly MetricFamily[]): string =>
  families
    .map((family) =>
      [
        `# HELP ${family.name} ${escapeHelp(family.help)}`,
        `# TYPE ${family.name} ${family.type}`,
        ...family.samples.map((sample) => `${family.name}${formatLabels(sample.labels)} ${sample.value}`),
      ].join('\n'),
    )
    .join('\n')
    .concat('\n');
