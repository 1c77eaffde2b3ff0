/**
 * GET /shoal/v1/audit/proof: the log proven against its signed checkpoints, as `shoal audit
 * verify` proves it, under the key the operator published to this API
 * (SHOAL_AUDIT_PUBLIC_KEY: a PEM file, either half; absent: the first checkpoint's key,
 * trusted on first use and said so). The answer names the key's fingerprint.
 */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { shoalSettings } from '@shoal/config';
import { keyFingerprint, readPublicKey } from '@shoal/runtime';
import type { ExpectedPoint, Problem, ProblemKind, ProofReport, SigningKeyUse } from '@shoal/runtime';

export const EXPECT_PATTERN = /^(\d+):([0-9a-f]{64})$/;

export class AuditProofQuery {
  @ApiPropertyOptional({ description: 'A point the log must still hold: `<offset>:<chain hash>`, the `end` a previous proof reported. A log cut short of it fails.', example: `41:${'0'.repeat(64)}` })
  @IsOptional()
  @IsString()
  @Matches(EXPECT_PATTERN, { message: 'must be <offset>:<chain hash> (64 lowercase hex digits), the `end` a previous proof reported' })
  expect?: string;
}

export const expectedPoint = (value: string | undefined): ExpectedPoint | undefined => {
  const match = value === undefined ? null : EXPECT_PATTERN.exec(value);
  return match ? { through: Number(match[1]), chain: match[2]! } : undefined;
};

/** The key published to this API, read once: its public half, or undefined. */
export const publishedKey = (env: NodeJS.ProcessEnv = process.env): string | undefined => {
  const path = shoalSettings(env).SHOAL_AUDIT_PUBLIC_KEY;
  return path ? readPublicKey(path) : undefined;
};

export interface AuditProof extends ProofReport {
  /** The key published to this API (SHOAL_AUDIT_PUBLIC_KEY), if any: the proof trusts it. */
  readonly published?: { readonly fingerprint: string; readonly publicKey: string };
}

export const withPublished = (report: ProofReport, key: string | undefined): AuditProof => (key ? { ...report, published: { fingerprint: keyFingerprint(key), publicKey: key } } : report);

const KINDS: readonly ProblemKind[] = ['changed', 'removed', 'inserted', 'reordered', 'truncated', 'signature', 'key', 'chain', 'state', 'malformed', 'unsigned'];

class ProblemDoc implements Problem {
  @ApiProperty({ enum: KINDS }) kind!: ProblemKind;
  @ApiProperty({ description: 'The first offset of the log as read where it differs.' }) offset!: number;
  @ApiProperty() detail!: string;
}
class SigningKeyUseDoc implements SigningKeyUse {
  @ApiProperty({ example: `SHA256:${'0'.repeat(64)}` }) fingerprint!: string;
  @ApiProperty({ description: 'SPKI DER, base64.' }) publicKey!: string;
  @ApiProperty() since!: number;
  @ApiProperty({ enum: ['given', 'first use', 'announced'] }) trust!: SigningKeyUse['trust'];
}
class ExpectedPointDoc implements ExpectedPoint {
  @ApiProperty() through!: number;
  @ApiProperty() chain!: string;
}
class PublishedKeyDoc {
  @ApiProperty() fingerprint!: string;
  @ApiProperty() publicKey!: string;
}
export class AuditProofDoc implements AuditProof {
  @ApiProperty() log!: string;
  @ApiProperty() records!: number;
  @ApiProperty({ description: 'Every checkpoint holds and the log is the history they signed.' }) ok!: boolean;
  @ApiProperty() checkpoints!: number;
  @ApiProperty() signedThrough!: number;
  @ApiProperty() unsigned!: number;
  @ApiProperty({ type: [SigningKeyUseDoc] }) keys!: SigningKeyUseDoc[];
  @ApiProperty({ type: ExpectedPointDoc, description: 'The chain at the log\'s end: give it as `expect` later.' }) end!: ExpectedPointDoc;
  @ApiPropertyOptional({ type: ProblemDoc }) difference?: ProblemDoc;
  @ApiProperty({ type: [ProblemDoc] }) problems!: ProblemDoc[];
  @ApiPropertyOptional({ type: PublishedKeyDoc }) published?: PublishedKeyDoc;
}
