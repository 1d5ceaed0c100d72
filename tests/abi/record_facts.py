#!/usr/bin/python3
"""Record the ABI facts of the official PJRT C API and DLPack headers as data.

Run by hand when the project moves to a new interface version; the output
files are checked in and tests/abi compares our own headers against them.
The official headers are read from directories outside this tree and are
never copied into it.

    tests/abi/record_facts.py pjrt  PJRT_INCLUDE_DIR  SOURCE_NOTE > tests/abi/pjrt_c_api.abi
    tests/abi/record_facts.py dlpack DLPACK_INCLUDE_DIR SOURCE_NOTE > tests/abi/dlpack.abi

PJRT_INCLUDE_DIR must hold xla/pjrt/c/pjrt_c_api.h and
xla/pjrt/c/pjrt_c_api_stream_extension.h; DLPACK_INCLUDE_DIR must hold
dlpack/dlpack.h. The facts are measured by compiling a probe program against
those headers with the C compiler ($CC, default cc) and running it.

Output format, one fact per line ('#' starts a comment):
    size   TYPE SIZE ALIGN          sizeof and _Alignof of a struct or enum type
    field  TYPE FIELD OFFSET SIZE   offsetof and sizeof of a member (anonymous
                                    union members are listed by their own names)
    value  NAME VALUE               an enum constant, *_STRUCT_SIZE constant or
                                    numeric macro
    slots  PJRT_Api COUNT           function slots after pjrt_api_version
"""
import os
import platform
import re
import subprocess
import sys
import tempfile


def strip_comments(path):
    """The header's text without comments, preprocessor conditionals kept."""
    out = subprocess.run(['cc', '-fpreprocessed', '-dD', '-E', '-P', path],
                         check=True, capture_output=True, text=True).stdout
    return out


class Splitter:
    """Cuts C text, fed in pieces, at each ';' outside braces and parens:
    `done` holds the pieces cut so far, `pending()` what follows the last."""

    def __init__(self):
        self.done, self.cur, self.depth = [], [], 0

    def pending(self):
        return ''.join(self.cur).strip()

    def feed(self, text):
        for c in text:
            self.cur.append(c)
            if c in '{(':
                self.depth += 1
            elif c in '})':
                self.depth -= 1
            elif c == ';' and self.depth == 0:
                self.done.append(''.join(self.cur))
                self.cur = []


def statements(text):
    """Top-level declarations (ending with ';' outside braces/parens), one line each."""
    split, continued = Splitter(), False
    for line in text.split('\n'):
        if continued:  # continuation of a multi-line preprocessor directive
            continued = line.endswith('\\')
            continue
        if not split.pending() and line.lstrip().startswith('#'):
            continued = line.endswith('\\')
            continue
        if not split.pending() and line.strip() in ('extern "C" {', '}'):
            continue
        split.feed(line + '\n')
    return [' '.join(s.split()) for s in split.done]


def members(body):
    split = Splitter()
    split.feed(body)
    return [s.strip() for s in split.done]


def member_names(m):
    """Names a member declaration makes accessible (recursing into anonymous unions)."""
    m = m.replace('PJRT_NO_DISCARD', '').strip()
    api = re.match(r'_PJRT_API_STRUCT_FIELD\(\s*(\w+)\s*\)', m)
    if api:
        return [api.group(1)]
    if '{' in m:
        inner = m[m.index('{') + 1:m.rindex('}')]
        names = []
        for sub in members(inner):
            names += member_names(sub)
        return names
    f = re.search(r'\(\s*\*\s*(\w+)\s*\)', m)
    if f:
        return [f.group(1)]
    return re.findall(r'(\w+)\s*(?:\[[^\]]*\])?\s*;$', m)[-1:]


def parse(text):
    structs, enums, enum_types = [], [], []
    for s in statements(text):
        m = re.match(r'^(?:typedef )?struct (\w+)? ?\{(.*)\} ?(\w*) ?;$', s)
        if m:
            name = m.group(3) or m.group(1)
            fields = []
            for mem in members(m.group(2)):
                fields += member_names(mem)
            structs.append((name, fields))
            continue
        m = re.match(r'^typedef enum (?:: \w+ )?\{(.*)\} (\w+);$', s)
        if m:
            enum_types.append(m.group(2))
            for item in [x.strip() for x in m.group(1).split(',') if x.strip()]:
                enums.append(item.split('=')[0].strip())
    return structs, enums, enum_types


def probe(includes, include_dirs, structs, enums, enum_types, values, slots):
    src = ['#include <stddef.h>', '#include <stdio.h>']
    src += ['#include "%s"' % h for h in includes]
    src.append('int main(void) {')
    for t in enum_types:
        src.append('printf("size %s %%zu %%zu\\n", sizeof(%s), _Alignof(%s));' % (t, t, t))
    for name, fields in structs:
        src.append('printf("size %s %%zu %%zu\\n", sizeof(%s), _Alignof(%s));' % (name, name, name))
        for f in fields:
            src.append('printf("field %s %s %%zu %%zu\\n", offsetof(%s, %s), sizeof(((%s *)0)->%s));'
                       % (name, f, name, f, name, f))
    for v in enums + values:
        src.append('printf("value %s %%lld\\n", (long long)(%s));' % (v, v))
    if slots:
        src.append('printf("slots PJRT_Api %%zu\\n", (sizeof(PJRT_Api) - offsetof(PJRT_Api, %s)) '
                   '/ sizeof(void (*)(void)));' % slots)
    src.append('return 0;\n}')
    with tempfile.TemporaryDirectory() as d:
        c = os.path.join(d, 'probe.c')
        exe = os.path.join(d, 'probe')
        open(c, 'w').write('\n'.join(src) + '\n')
        cc = os.environ.get('CC', 'cc')
        subprocess.run([cc, '-std=c11', '-w'] + ['-I' + i for i in include_dirs] + [c, '-o', exe],
                       check=True)
        return subprocess.run([exe], check=True, capture_output=True, text=True).stdout


def main():
    kind, inc, note = sys.argv[1], sys.argv[2], sys.argv[3]
    if kind == 'pjrt':
        headers = ['xla/pjrt/c/pjrt_c_api.h', 'xla/pjrt/c/pjrt_c_api_stream_extension.h']
        text = ''.join(strip_comments(os.path.join(inc, h)) for h in headers)
        structs, enums, enum_types = parse(text)
        traits = [n for n in re.findall(r'PJRT_DEFINE_STRUCT_TRAITS\(\s*(\w+)', text)
                  if n != 'sname'] + ['PJRT_Api']
        values = ['PJRT_API_MAJOR', 'PJRT_API_MINOR', 'PJRT_API_STREAM_EXTENSION_VERSION']
        values += [n + '_STRUCT_SIZE' for n in traits]
        title = 'PJRT C API (pjrt_c_api.h and pjrt_c_api_stream_extension.h)'
        slot0 = 'PJRT_Error_Destroy'
    else:
        headers = ['dlpack/dlpack.h']
        text = strip_comments(os.path.join(inc, headers[0]))
        text = text.replace('#ifdef __cplusplus\ntypedef enum : int32_t {\n#else\ntypedef enum {\n#endif',
                            'typedef enum {')
        structs, enums, enum_types = parse(text)
        values = ['DLPACK_MAJOR_VERSION', 'DLPACK_MINOR_VERSION', 'DLPACK_FLAG_BITMASK_READ_ONLY',
                  'DLPACK_FLAG_BITMASK_IS_COPIED', 'DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED']
        title = 'DLPack (dlpack.h)'
        slot0 = None
    facts = probe(headers, [inc], structs, enums, enum_types, values, slot0)
    cc = subprocess.run([os.environ.get('CC', 'cc'), '--version'], capture_output=True,
                        text=True).stdout.split('\n')[0]
    print('# ABI facts of the official %s.' % title)
    for line in note.split('\n'):
        print('# ' + line)
    print('# Measured by tests/abi/record_facts.py on %s %s with %s.'
          % (platform.system(), platform.machine(), cc))
    print('# %d struct types, %d enum types, %d named values.'
          % (len(structs), len(enum_types), len(enums) + len(values)))
    sys.stdout.write(facts)


if __name__ == '__main__':
    main()
