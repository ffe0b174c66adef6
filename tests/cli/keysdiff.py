# SPDX-License-Identifier: MIT
# keysdiff.py: gpusort's keys against LC_ALL=C sort, differentially: seeded random
# text records (fields of integers, floating-point numbers and words; -t or blank
# runs; -z; now and then a long field) and random key definitions (several -k, F.C
# and F2.C2 positions, b on either end, r, n, g; global -b -r -s -u -n -g inherited
# by keys without letters), sorted, merged (-m of inputs sort sorted first), checked
# (-c, -C), spilled (-S 1M) and with --header (each input given a header line, which
# sort is not), every output and exit status compared with sort's.
#
# python3 keysdiff.py SEED CASES: prints each case that differs (its command line
# and files kept under keysdiff-fail-SEED-K/) and exits 1 if any did. GPUSORT names
# the program.
import os
import random
import shutil
import subprocess
import sys

GPUSORT = os.environ['GPUSORT']
ENV = dict(os.environ, LC_ALL='C')
WORDS = ['a', 'b', 'ab', 'abc', 'B', 'Z', 'zz', 'a b', ' a', 'b ', 'x\x01', 'x\x7f', '\xe9t\xe9',
         '-', '0', '10', 'a,b']


def rand_int(rng):
    v = rng.choice([rng.randint(-9, 9), rng.randint(-1000, 1000), rng.randint(-2**40, 2**40)])
    s = str(v)
    if rng.random() < 0.05:   # leading zeros ('+5' is where gpusort and sort differ)
        s = s.replace('-', '-0') if v < 0 else '0' + s
    return s


def rand_float(rng):
    """A number with few significant digits: sort's long double and gpusort's double
    order such numbers alike. No NaN: sort (coreutils 9.1) orders NaNs by bytes of a
    long double that are not all set, differently from one run to the next; their
    place is tested by hand (records-keys.sh)."""
    r = rng.random()
    if r < 0.03:
        return rng.choice(['inf', '-inf', 'INF', 'Infinity', '-0', '0'])
    m = rng.randint(-999, 999)
    e = rng.randint(-3, 3)
    if r < 0.4:
        return '%de%d' % (m, e)
    if r < 0.7:
        return '%.2f' % (m / 100.0)
    if r < 0.8:
        return '0x%xp%d' % (abs(m), e) if m >= 0 else '-0x%xp%d' % (-m, e)
    return str(m)


def make_line(rng, kinds, sep):
    fields = []
    for k in kinds:
        if k == 'n':
            f = rand_int(rng)
        elif k == 'g':
            f = rand_float(rng)
        else:
            f = rng.choice(WORDS)
            if rng.random() < 0.02:   # a long field: past the copies' fixed 64 bytes
                f = ''.join(rng.choice('abAB') for _ in range(rng.randint(60, 300)))
            if sep is None or f == 'a,b' and sep == ',':
                f = f.replace(' ', '').replace(',', '') or 'w'
        if sep is None or rng.random() < 0.2:
            f = ' ' * rng.randint(0 if sep is not None else 1, 2) + f
        fields.append(f)
    return (sep or '').join(fields) if sep is not None else ''.join(fields)


def make_key(rng, kinds, glob):
    """A -k option, and whether it has letters of its own."""
    nf = len(kinds)
    f = rng.randint(1, nf)
    kind = kinds[f - 1]
    letters = ''
    numeric = kind in 'ng' and rng.random() < 0.8
    if numeric:
        # A number: its whole field, from its start (to its end or the line's).
        spec = '%d' % f
        if glob != kind or rng.random() < 0.5:
            letters += kind
        if rng.random() < 0.3:
            letters += 'r'
        if rng.random() < 0.2:
            letters += 'b'
        spec += letters
        if rng.random() < 0.6:
            spec += ',%d' % rng.randint(f, nf)
        return spec, letters, kind
    if rng.random() < 0.2:
        f = rng.randint(1, nf + 1)   # maybe past the last field: an empty key
    spec = '%d' % f
    if rng.random() < 0.3:
        spec += '.%d' % rng.randint(1, 3)
    if rng.random() < 0.25:
        letters += 'b'
    if rng.random() < 0.3:
        letters += 'r'
    spec += letters
    if rng.random() < 0.6:
        f2 = rng.randint(f, nf + 1)
        spec += ',%d' % f2
        if rng.random() < 0.3:
            spec += '.%d' % rng.randint(0, 3)
        if rng.random() < 0.2:
            spec += 'b'
            letters += 'b'
    return spec, letters, 'text'


def run(args, stdin=None):
    p = subprocess.run(args, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=stdin)
    return p.returncode, p.stdout, p.stderr


def one_case(rng, case, workdir):
    nf = rng.randint(1, 5)
    kinds = [rng.choice('nngtt') for _ in range(nf)]
    sep = rng.choice([',', '\t', ':', None])
    zero = rng.random() < 0.1
    big = rng.random() < 0.08
    nlines = rng.randint(3000, 20000) if big else rng.choice([0, 1, 2, 5, 30, 200, 1000])
    glob = ''
    if rng.random() < 0.15:
        glob = rng.choice('ng')
    keys = []
    for _ in range(rng.randint(1, 3)):
        spec, letters, kind = make_key(rng, kinds, glob)
        # A key without letters takes the global kind: only over a field of that kind
        # (a letter of its own, b, keeps it from inheriting).
        if not letters and glob and kind != glob:
            spec += 'b'
        keys.append(spec)
    opts = []
    if sep is not None:
        opts += ['-t', sep]
    if zero:
        opts.append('-z')
    if glob:
        opts.append('-' + glob)
    for flag in '-r', '-s', '-u', '-b':
        if rng.random() < 0.2:
            opts.append(flag)
    for k in keys:
        opts += ['-k', k]
    term = '\0' if zero else '\n'
    nin = rng.choice([1, 1, 2])
    files = []
    for i in range(nin):
        lines = [make_line(rng, kinds, sep) for _ in range(nlines // nin)]
        text = term.join(lines) + (term if lines and rng.random() < 0.95 else '')
        name = os.path.join(workdir, 'in%d' % i)
        with open(name, 'w', encoding='latin-1', newline='') as f:
            f.write(text)
        files.append(name)
    mode = rng.choice(['sort'] * 6 + ['merge', 'check'])
    # --header (sort has none): each input opens with a header line, which gpusort
    # writes first (the first input's) and sort is given the inputs without.
    header = mode != 'check' and rng.random() < 0.1
    gs_opts = list(opts)
    if big and rng.random() < 0.7:
        gs_opts += ['-S', '1M']
    if mode == 'merge':
        for name in files:
            rc, out, _ = run(['sort'] + opts + [name])
            with open(name, 'wb') as f:
                f.write(out)
        opts.append('-m')
        gs_opts.append('-m')
    elif mode == 'check':
        files = files[:1]
        if rng.random() < 0.5:
            rc, out, _ = run(['sort'] + opts + files)
            with open(files[0], 'wb') as f:
                f.write(out)
        c = rng.choice(['-c', '-C'])
        opts.append(c)
        gs_opts.append(c)
    want = run(['sort'] + opts + files)
    gs_files = files
    if header:
        gs_files = []
        for i, name in enumerate(files):
            with open(name, 'rb') as f:
                body = f.read()
            with open(name + '.h', 'wb') as f:
                f.write(b'key header %d' % i + term.encode() + body)
            gs_files.append(name + '.h')
        gs_opts.append('--header')
        if want[0] == 0:
            want = (0, b'key header 0' + term.encode() + want[1], want[2])
    got = run([GPUSORT] + gs_opts + gs_files)
    same = want[0] == got[0] and want[1] == got[1]
    if same and mode == 'check' and want[0] == 1:
        # the same first disorder: the message less the program's name
        same = want[2].split(b':', 1)[1:] == got[2].split(b':', 1)[1:]
    if not same:
        keep = 'keysdiff-fail-%s-%d' % (sys.argv[1], case)
        shutil.rmtree(keep, ignore_errors=True)
        shutil.copytree(workdir, keep)
        print('case %d differs: %s %s (sort exit %d, gpusort exit %d)' %
              (case, ' '.join(repr(a) for a in gs_opts), ' '.join(files), want[0], got[0]))
        print('  gpusort stderr: %r' % got[2][:300])
        print('  files kept in %s' % keep)
        return False
    return True


def main():
    seed, cases = int(sys.argv[1]), int(sys.argv[2])
    workdir = os.path.abspath('keysdiff-work')
    failed = 0
    for case in range(cases):
        shutil.rmtree(workdir, ignore_errors=True)
        os.mkdir(workdir)
        rng = random.Random(seed * 100003 + case)
        if not one_case(rng, case, workdir):
            failed += 1
    shutil.rmtree(workdir, ignore_errors=True)
    print('%d cases, %d differ' % (cases, failed))
    return 1 if failed else 0


sys.exit(main())
