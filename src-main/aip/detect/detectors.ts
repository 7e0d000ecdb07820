import type { ThreatsConfig } from '../policy/types.js';
import { builtinChainRules, ChainDetector } from './chains.js';
import type { DetectorFinding } from './finding.js';
import { InjectionDetector } from './injection.js';
import { scanCommandArguments } from './shell.js';

/*
 * The detectors of one loaded policy (`spec.x-silas-threats`, docs/threat-detection.md), built
 * once when the policy loads like its DLP engine: the injection detector for each direction with
 * the policy's own patterns, and the shell analysis of command arguments. The chain detector keeps
 * a session's history, so the proxy asks for one per session (`chainDetector`).
 */
/**
 * A finding that says only that the input was too large to scan completely (`too_large`): recorded,
 * never acted on, like text past DLP's max_scan_size (spec 001 §3.6.3) — refusing every large file
 * read would block real work, and what was scanned was judged.
 */
export function actionable(findings: readonly DetectorFinding[]): DetectorFinding[] {
  return findings.filter((finding) => finding.rule !== 'too_large');
}

export class ThreatDetectors {
  private readonly returned: InjectionDetector | null;
  private readonly sent: InjectionDetector | null;

  constructor(readonly config: ThreatsConfig) {
    this.returned = config.results === 'off' ? null : new InjectionDetector('results', config.patterns);
    this.sent = config.arguments === 'off' ? null : new InjectionDetector('arguments', config.patterns);
  }

  /** Injected instructions and disguised commands in a tools/call's arguments; [] when `arguments: off`. */
  scanArguments(args: unknown): DetectorFinding[] {
    if (this.sent === null || args === undefined) return [];
    const findings = this.sent.scanValue(args);
    for (const finding of scanCommandArguments(args)) findings.push(finding);
    return findings;
  }

  /** Injected instructions in what a server returns or asks (results, resources, prompts, sampling, elicitation); [] when `results: off`. */
  scanReturned(value: unknown): DetectorFinding[] {
    return this.returned === null ? [] : this.returned.scanValue(value);
  }

  /** A fresh chain detector for one session, or null when `chains: off`. */
  chainDetector(): ChainDetector | null {
    const { chains, chainRules, chainWindow } = this.config;
    if (chains === 'off') return null;
    // The built-in rules take the section's action; a policy's own rules carry theirs.
    return new ChainDetector(chainRules ?? builtinChainRules(chainWindow).map((rule) => ({ ...rule, action: chains })), chainWindow);
  }
}
