#!/usr/bin/env python3
"""Runs one libFuzzer target of a -Dfuzzing=true build; used by the fuzz-coverage and fuzz-ci
tests and by scripts/fuzz.sh.

  run-fuzzer.py coverage FUZZER CORPUS FILE...   the corpus covers functions of every FILE
  run-fuzzer.py run FUZZER CORPUS SECONDS        a bounded campaign; any finding fails. Its
                                                 seed is fixed (DSH_FUZZ_SEED, else one per
                                                 target), so a run that fails fails again
  run-fuzzer.py campaign FUZZER CORPUS SECONDS   a campaign whose new coverage is merged into
                                                 CORPUS (-merge=1: only inputs adding coverage)

A target whose library carried no coverage instrumentation would cover its own file only: the
coverage check is what proves the build instruments the code under test.
"""
import os
import re
import subprocess
import sys
import tempfile
import zlib

FLAGS = ['-timeout=10', '-rss_limit_mb=2048', '-print_final_stats=1']


def fuzzer_name(fuzzer):
    return os.path.basename(fuzzer)


def coverage(fuzzer, corpus, files):
    with tempfile.TemporaryDirectory(prefix='dsh-fuzz-cov-') as scratch:
        proc = subprocess.run([fuzzer, '-runs=0', '-print_coverage=1', scratch, corpus],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors='replace')
    out = proc.stdout
    if proc.returncode != 0:
        sys.stdout.write(out)
        print(f'{fuzzer_name(fuzzer)}: the corpus run failed (status {proc.returncode})')
        return 1
    covered = {}
    for line in out.splitlines():
        m = re.match(r'COVERED_FUNC: hits: (\d+) edges: (\d+)/(\d+) (\S+) (\S+):\d+', line)
        if m:
            covered.setdefault(os.path.basename(m.group(5)), []).append(m.group(4))
    status = 0
    for name in files:
        funcs = covered.get(name, [])
        print(f'{fuzzer_name(fuzzer)}: {len(funcs)} covered functions in {name}')
        if not funcs:
            status = 1
    if status:
        print(f'{fuzzer_name(fuzzer)}: the coverage counters miss the code under test; is the '
              'library built with -fsanitize=fuzzer-no-link? Covered files: '
              + ', '.join(sorted(covered)))
    return status


def last_stats(out):
    cov = re.findall(r'\bcov: (\d+) ft: (\d+)', out)
    execs = re.search(r'stat::number_of_executed_units: (\d+)', out)
    rate = re.search(r'stat::average_exec_per_sec: *(\d+)', out)
    return (cov[-1] if cov else ('?', '?'), execs.group(1) if execs else '?',
            rate.group(1) if rate else '?')


def fixed_seed(fuzzer):
    """The seed of a checking run: DSH_FUZZ_SEED, else one of the target's own (never 0,
    which libFuzzer takes for "pick one"). A check that passed or failed on one machine does the
    same on the next, given the time to reach as far."""
    seed = os.environ.get('DSH_FUZZ_SEED')
    if seed:
        return int(seed)
    return zlib.crc32(fuzzer_name(fuzzer).encode()) % 0x7fffffff + 1


def run(fuzzer, corpus, seconds, merge):
    findings = os.path.join(os.path.dirname(os.path.abspath(fuzzer)), 'findings')
    os.makedirs(findings, exist_ok=True)
    prefix = os.path.join(findings, fuzzer_name(fuzzer) + '-')
    # A campaign looks for what nobody has seen: libFuzzer picks its seed.
    seed = [] if merge else [f'-seed={fixed_seed(fuzzer)}']
    with tempfile.TemporaryDirectory(prefix='dsh-fuzz-new-') as grown:
        # New inputs land in the first directory, never in the committed corpus.
        proc = subprocess.run([fuzzer, f'-max_total_time={seconds}', f'-artifact_prefix={prefix}']
                              + seed + FLAGS + [grown, corpus],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors='replace')
        out = proc.stdout
        (cov, ft), execs, rate = last_stats(out)
        if proc.returncode != 0:
            sys.stdout.write(out[-20000:])
            print(f'{fuzzer_name(fuzzer)}: FINDING (status {proc.returncode}); the input is '
                  f'under {findings}: fix the bug, then add the input to {corpus} as a '
                  'regression-* file' + (f' (this run: DSH_FUZZ_SEED={seed[0][6:]})'
                                         if seed else ''))
            return 1
        print(f'{fuzzer_name(fuzzer)}: {seconds} s, {execs} runs, {rate} runs/s, '
              f'cov {cov}, ft {ft}' + (f', seed {seed[0][6:]}' if seed else ''))
        if merge:
            before = len(os.listdir(corpus))
            subprocess.run([fuzzer, '-merge=1', corpus, grown], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            print(f'{fuzzer_name(fuzzer)}: corpus {before} -> {len(os.listdir(corpus))} inputs')
    return 0


def main(argv):
    if len(argv) >= 4 and argv[1] == 'coverage':
        return coverage(argv[2], argv[3], argv[4:])
    if len(argv) == 5 and argv[1] in ('run', 'campaign'):
        seconds = int(os.environ.get('DSH_FUZZ_SECONDS', argv[4]))
        return run(argv[2], argv[3], seconds, argv[1] == 'campaign')
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
