#!/usr/bin/env python3
"""Reference answers for the differential test (tests/cli/corpus.rs).

For every archive under ../shared/corpus/libarchive/ (the shared corpus laid
beside the clone, read in place: the project keeps no copy), libarchive (bsdtar from
Debian's libarchive-tools) reads it and rewrites it as a pax tar on stdout
(`bsdtar -cf - --format=pax @ARCHIVE`); Python's tarfile then lists what
libarchive read: each regular member's name, sha256, and its lines as
artiscan numbers them (grep -n). A file that is no archive is decompressed
with bsdcat and is one member with an empty name. Writes golden.json.

Run: python3 tests/corpus/make_golden.py   (needs bsdtar and bsdcat)
"""
import hashlib, io, json, os, subprocess, sys, tarfile, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..', '..', 'shared', 'corpus', 'libarchive')


def limit():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    resource.setrlimit(resource.RLIMIT_CPU, (8, 8))


CAP = 64 << 20


def run(cmd, env):
    """stdout (at most CAP bytes; past it the reader is killed), stderr,
    return code: a gzip quine makes bsdtar write forever."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, env=env,
                             preexec_fn=limit)
        data = p.stdout.read(CAP + 1)
        if len(data) > CAP:
            p.kill()
        p.stdout.close()
        rc = p.wait()
        err.seek(0)
        msg = err.read().decode('utf-8', 'replace').strip()
        if len(data) > CAP:
            return data[:CAP], msg or 'output past 64 MiB', 1
        return data, msg, rc


def lines_digest(data):
    """Line count and sha256 of the lines as artiscan's JSON shows them:
    a leading UTF-8 BOM dropped, split at \\n, a trailing \\r removed,
    invalid UTF-8 replaced, joined with \\n."""
    if data.startswith(b'\xef\xbb\xbf'):
        data = data[3:]
    if not data:
        return 0, hashlib.sha256(b'').hexdigest()
    parts = data.split(b'\n')
    if parts[-1] == b'':
        parts.pop()
    text = '\n'.join(
        (p[:-1] if p.endswith(b'\r') else p).decode('utf-8', 'replace') for p in parts)
    return len(parts), hashlib.sha256(text.encode('utf-8')).hexdigest()


def member(name, data):
    n, digest = lines_digest(data)
    return {'name': name, 'sha256': hashlib.sha256(data).hexdigest(),
            'lines': n, 'lines_sha256': digest}


# A 10 GiB sparse member inside .Z: bsdtar and tarfile cannot expand it
# within the limits above (artiscan reports .Z unsupported): not compared.
HUGE = {'test_read_format_gtar_sparse_skip_entry.tar.Z'}


def read(path):
    if os.path.basename(path) in HUGE:
        return {'members': [], 'error': 'not compared: 10 GiB sparse member'}
    env = dict(os.environ, LC_ALL='C.UTF-8')
    out, err, rc = run(['bsdtar', '-cf', '-', '--format=pax', '@' + path], env)
    if rc != 0 and 'Unrecognized archive format' in err:
        data, cerr, crc = run(['bsdcat', path], env)
        res = {'members': [member('', data)]}
        if crc != 0:
            res['error'] = cerr or 'bsdcat failed'
        return res
    members = []
    broken = None
    try:
        with tarfile.open(fileobj=io.BytesIO(out), mode='r:',
                          encoding='utf-8', errors='replace') as t:
            for m in t:
                if m.isfile():
                    members.append(member(m.name, t.extractfile(m).read()))
                elif m.issym() or m.islnk():
                    members.append({'name': m.name, 'link': m.linkname})
    except Exception as e:  # noqa: BLE001 - any reader failure is recorded
        broken = 'pax stream: ' + str(e)
    res = {'members': members}
    if rc != 0 or broken:
        res['error'] = '; '.join(x for x in [err, broken] if x) or 'bsdtar failed'
    return res


def main():
    if not os.path.isdir(ROOT):
        sys.exit('no shared corpus at %s: lay shared/corpus/ beside the clone' % ROOT)
    golden = {}
    for d, _, files in sorted(os.walk(ROOT)):
        for f in sorted(files):
            path = os.path.join(d, f)
            print(path, file=sys.stderr, flush=True)
            golden[os.path.join('libarchive', os.path.relpath(path, ROOT))] = read(path)
    with open(os.path.join(HERE, 'golden.json'), 'w') as o:
        json.dump(golden, o, indent=1, sort_keys=True, ensure_ascii=True)
        o.write('\n')
    print(len(golden), 'archives', file=sys.stderr)


if __name__ == '__main__':
    main()
