import type { NamedSecrets } from '../../keys/named-secrets.js';
import { AgentUnavailableError, type IlpAgent } from '../agents/agent.js';
import { remoteAgent } from '../agents/remote-agent.js';
import type { RemoteSpecialistSpec } from './ilp-config.js';

/*
 * The remote specialists HOME/ilp.yaml registers (spec 004 Appendix B Level 3; docs/ilp.md
 * "Configuration"), as agents the meta-agent composes like its own: same codec, enforcer, screen
 * and records. A credential is read from the keyring when the hop is made and goes only to the
 * origin it was stored for (`silas secrets set NAME --origin ORIGIN`, the same release rule as a
 * model provider's key): an address changed in the file cannot take it elsewhere, and without a
 * release the hop is a 503 that says how to fix it, not a request without its credential.
 */

type SecretReader = Pick<NamedSecrets, 'get' | 'releasable'>;

export function remoteSpecialists(specs: readonly RemoteSpecialistSpec[], secrets: SecretReader): IlpAgent[] {
  return specs.map((spec) =>
    remoteAgent({
      id: spec.id,
      domain: spec.domain,
      description: spec.description ?? `Remote ${spec.domain} specialist at ${new URL(spec.url).origin}`,
      url: spec.url,
      ...(spec.timeout_ms === undefined ? {} : { timeoutMs: spec.timeout_ms }),
      ...(spec.credential_secret === undefined ? {} : { bearer: () => credentialFor(spec, spec.credential_secret!, secrets) }),
    }),
  );
}

function credentialFor(spec: RemoteSpecialistSpec, name: string, secrets: SecretReader): string {
  const origin = new URL(spec.url).origin;
  let value: string | null;
  try {
    const release = secrets.releasable(name, spec.url);
    if (!release.ok) {
      const where = release.withheld.bound.length === 0 ? 'it was not stored for any address' : `it may be sent only to ${release.withheld.bound.join(', ')}`;
      throw new AgentUnavailableError(`the credential of ${spec.id} (secret "${name}") was not sent to ${origin}: ${where}; if ${origin} is right, run \`silas secrets set ${name} --origin ${origin}\``);
    }
    value = secrets.get(name);
  } catch (error) {
    if (error instanceof AgentUnavailableError) throw error;
    throw new AgentUnavailableError(`the credential of ${spec.id} (secret "${name}") could not be read from the OS keyring: ${(error as Error).message}`);
  }
  if (value === null || value === '') throw new AgentUnavailableError(`the credential of ${spec.id} (secret "${name}") is not in the OS keyring; run \`silas secrets set ${name} --origin ${origin}\``);
  if (!/^[\x21-\x7e]+$/.test(value)) throw new AgentUnavailableError(`the credential in secret "${name}" has a space or line break; run \`silas secrets set ${name} --origin ${origin}\` and enter it alone`);
  return value;
}
