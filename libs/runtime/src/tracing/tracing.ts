/**
 * Traces for one process, as OpenTelemetry's own variables say (OTEL_TRACES_EXPORTER,
 * OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_SERVICE_NAME,
 * OTEL_TRACES_SAMPLER / _ARG, declared in @shoal/config). Off by default: then no provider
 * is registered, and everything that traces asks `tracingOn()` first and does nothing
 * more — no header is read or written, no span made.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import type { Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';
import type { Sampler, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { shoalSettings } from '@shoal/config';
import type { ShoalSettings } from '@shoal/config';
import { AsyncLocalContextManager } from './async-context';

let provider: BasicTracerProvider | undefined;

/** Whether this process traces: the one cheap check every hook makes first. */
export const tracingOn = (): boolean => provider !== undefined;

/** Shoal's tracer (a no-op one while tracing is off). */
export const shoalTracer = (): Tracer => trace.getTracer('shoal');

export interface Tracing {
  /** Sends what is still buffered and stops tracing. */
  shutdown(): Promise<void>;
  /** Sends what is buffered now. */
  forceFlush(): Promise<void>;
}

export interface TracingOptions {
  /** The resource's service.name. */
  readonly serviceName: string;
  /** Where finished spans go (a BatchSpanProcessor on the OTLP exporter; a test's in-memory one). */
  readonly spanProcessors: SpanProcessor[];
  /** Default: parent-based, always on. */
  readonly sampler?: Sampler;
}

/**
 * Registers a tracer provider, W3C Trace Context and an AsyncLocalStorage context manager
 * globally; a tracing already started is stopped first.
 */
export const startTracing = (options: TracingOptions): Tracing => {
  if (provider) void stopGlobal();
  const started = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    sampler: options.sampler ?? new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    spanProcessors: options.spanProcessors,
  });
  context.setGlobalContextManager(new AsyncLocalContextManager());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(started);
  provider = started;
  return {
    forceFlush: () => started.forceFlush(),
    shutdown: async () => {
      if (provider === started) await stopGlobal();
      else await started.shutdown();
    },
  };
};

const stopGlobal = async (): Promise<void> => {
  const stopping = provider;
  provider = undefined;
  trace.disable();
  propagation.disable();
  context.disable();
  await stopping?.shutdown();
};

/** The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name. */
export const samplerOf = (settings: Pick<ShoalSettings, 'OTEL_TRACES_SAMPLER' | 'OTEL_TRACES_SAMPLER_ARG'>): Sampler => {
  const ratio = settings.OTEL_TRACES_SAMPLER_ARG === undefined ? 1 : Number(settings.OTEL_TRACES_SAMPLER_ARG);
  switch (settings.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on') {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
};

/** Where OTLP/HTTP traces go: the traces endpoint as given, or `<endpoint>/v1/traces` (OpenTelemetry's rule). */
export const otlpTracesUrl = (settings: Pick<ShoalSettings, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'>): string => {
  if (settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = settings.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318';
  return `${base.replace(/\/+$/, '')}/v1/traces`;
};

/** The service.name of a Shoal process: OTEL_SERVICE_NAME, else `shoal-<process>` (`shoal` for the all-in-one). */
export const serviceNameOf = (settings: Pick<ShoalSettings, 'OTEL_SERVICE_NAME'>, processName: string): string =>
  settings.OTEL_SERVICE_NAME ?? (processName === 'shoal' ? 'shoal' : `shoal-${processName}`);

/**
 * Starts tracing when the environment asks for it (OTEL_TRACES_EXPORTER=otlp), sending
 * batches of spans over OTLP/HTTP; otherwise undefined, and nothing is registered. A bad
 * value throws the settings' ConfigurationError, naming the variable.
 */
export const startTracingFromEnv = (processName: string, env: NodeJS.ProcessEnv = process.env): Tracing | undefined => {
  const settings = shoalSettings(env);
  if ((settings.OTEL_TRACES_EXPORTER ?? 'none') !== 'otlp') return undefined;
  return startTracing({
    serviceName: serviceNameOf(settings, processName),
    sampler: samplerOf(settings),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: otlpTracesUrl(settings) }))],
  });
};
