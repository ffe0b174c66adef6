/* SPDX-License-Identifier: MIT */
/* usage.c: --help and --version. */
#include <config.h>

#include <stdio.h>

#include "cli/options.h"
#include "sorter/sorter.h"
#include "store/codec.h"

void opt_usage(void)
{
    fputs(
"Usage: gpusort [OPTION]... [FILE]...\n"
"Sort the integers in the FILEs (concatenated), or the lines or binary records\n"
"by their keys, and write them to standard output.\n"
"With no FILE, or when FILE is -, read standard input.\n"
"\n"
"Formats:\n"
"  -B, --binary               input and output are raw fixed-width integers\n"
"                             (or records, with --record-size)\n"
"      --input-format=FMT     text or binary, for the input alone\n"
"      --output-format=FMT    text or binary, for the output alone\n"
"      --type=TYPE            i32, u32, i64 (default) or u64; binary keys also\n"
"                             f32, f64, bytesN (N bytes, memcmp order)\n"
"      --endian=ORDER         byte order of binary data: little (default) or big\n"
"  -o, --output=FILE          write to FILE instead of standard output (FILE is\n"
"                             replaced only once the sort has succeeded)\n"
"\n"
"Records:\n"
"  -k, --key=KEYDEF           sort lines by a key, as sort: F[.C][OPTS][,F2[.C2]\n"
"                             [OPTS]], OPTS b, r, and n (integer) or g (float);\n"
"                             text without n or g; several -k break ties\n"
"  -t, --field-separator=SEP  fields are separated by the byte SEP (default:\n"
"                             runs of blanks, as in sort)\n"
"  -s, --stable               equal keys in input order (default: as in sort,\n"
"                             by the whole line)\n"
"  -z, --zero-terminated      lines end with NUL, not newline\n"
"      --header               the first line of each input is a header: the\n"
"                             first is written first, the others dropped\n"
"      --record-size=N        binary records of N bytes, written back whole\n"
"      --key-offset=O         the key's first byte in each record (default 0)\n"
"\n"
"Ordering:\n"
"  -r, --reverse              descending order\n"
"  -u, --unique               write only the first of a run of equal keys\n"
"  -c, --check                check that the input is sorted; report the first\n"
"                             disorder and exit 1\n"
"  -C, --check=quiet          as -c, printing nothing\n"
"  -m, --merge                merge inputs that are each sorted already\n"
"  -b, -n, -g                 as in sort, for the keys without letters: skip\n"
"                             leading blanks, integers, floating-point numbers\n"
"                             (-g without -k: bare floating-point numbers)\n"
"\n"
"Engine:\n"
"  -a, --algorithm=ALGO       GPU chunk sort: radix (default) or bitonic\n"
"      --device=DEV           auto (default), cpu, all, or GPU numbers N[,N...]\n"
"      --gpu-memory=SIZE      most device memory to use on each GPU\n"
"  -S, --buffer-size=SIZE     most host memory for buffers and in-memory runs\n"
"  -T, --temporary-directory=DIR\n"
"                             where spilled runs go (default $TMPDIR or /tmp)\n"
"      --compress-temp=MODE   auto (default), lz4 or none\n"
"      --parallel=N           CPU threads (default: the CPUs gpusort may use)\n"
"      --progress             show progress on standard error\n"
"      --stats                print a per-stage table on standard error at exit\n"
"      --help                 display this help and exit\n"
"      --version              output version information and exit\n"
"\n"
"SIZE is a number with an optional suffix b (bytes), K, M, G, T (powers of 1024)\n"
"or % (of physical memory for -S, of device memory for --gpu-memory); a bare\n"
"number means KiB.\n"
"\n"
"sort's other orderings (-d -f -h -i -M -R -V) are refused: use sort(1) for\n"
"those.\n"
"\n"
"Exit status: 0 on success, 1 if -c/-C found disorder, 2 on any error.\n"
"See gpusort(1) for the whole story.\n", stdout);
}

void opt_version(void)
{
    printf("gpusort %s\n", PACKAGE_VERSION);
    puts("Copyright (C) 2026 the gpusort authors.\n"
         "License MIT: <https://opensource.org/license/mit>.\n"
         "This is free software: you are free to change and redistribute it.\n"
         "There is NO WARRANTY, to the extent permitted by law.\n");
    puts("Built with:");
    sorter_describe_build();
    printf("  LZ4 %s, for runs spilled to disk\n", codec_lz4_version());
}
