/* What a plugin file is when dlopen cannot load it because it is a library
 * for another system: PyPI carries PJRT plugin wheels for Windows (a DLL:
 * jax-qnn's for ARM64, winjax-cuda13-pjrt's for x86-64) and macOS (Mach-O:
 * metal-pjrt-core, metaljax), whose "invalid ELF header" said nothing of
 * that. The formats are read as their public specifications lay them out
 * (PE/COFF, Mach-O), little-endian, every offset checked against the file.
 * Besides the system and the CPU, the file's PJRT entry symbol is named:
 * jax-qnn exports GetPjRtApi, not GetPjrtApi. */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define MAX_NAMES 65536 /* export names or symbols looked at */

static bool read_at(int fd, uint64_t offset, void *buf, size_t n) {
    return offset <= (uint64_t)INT64_MAX && pread(fd, buf, n, (off_t)offset) == (ssize_t)n;
}

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const unsigned char *p) {
    return (uint16_t)(p[0] | p[1] << 8);
}

/* Whether `name` is a PJRT entry symbol, in any case ("GetPjrtApi",
 * "GetPjRtApi", Mach-O's "_GetPjrtApi"). */
static bool is_entry(const char *name) {
    static const char want[] = "getpjrtapi";
    if (name[0] == '_')
        name++;
    for (size_t i = 0; i < sizeof want; i++)
        if (tolower((unsigned char)name[i]) != want[i])
            return false;
    return true;
}

/* The file offset of relative virtual address `rva` (PE sections). */
static bool pe_offset(int fd, uint64_t sections, unsigned n, uint32_t rva, uint64_t *out) {
    for (unsigned i = 0; i < n; i++) {
        unsigned char s[40];
        if (!read_at(fd, sections + 40ull * i, s, sizeof s))
            return false;
        uint32_t va = le32(s + 12), size = le32(s + 8) > le32(s + 16) ? le32(s + 8) : le32(s + 16);
        if (rva >= va && rva - va < size) {
            *out = (uint64_t)le32(s + 20) + (rva - va);
            return true;
        }
    }
    return false;
}

/* The export named as a PJRT entry, if any, into `entry`. */
static void pe_entry(int fd, uint64_t sections, unsigned nsec, uint32_t export_rva, char *entry,
                     size_t size) {
    unsigned char dir[40];
    uint64_t at;
    if (export_rva == 0 || !pe_offset(fd, sections, nsec, export_rva, &at) ||
        !read_at(fd, at, dir, sizeof dir))
        return;
    uint32_t count = le32(dir + 24), names = le32(dir + 32);
    for (uint32_t i = 0; i < count && i < MAX_NAMES; i++) {
        unsigned char ptr[4];
        char name[64] = {0};
        if (!pe_offset(fd, sections, nsec, names + 4 * i, &at) || !read_at(fd, at, ptr, 4) ||
            !pe_offset(fd, sections, nsec, le32(ptr), &at))
            return;
        if (pread(fd, name, sizeof name - 1, (off_t)at) > 0 && is_entry(name)) {
            snprintf(entry, size, "%s", name);
            return;
        }
    }
}

static const char *pe_machine(uint16_t m) {
    switch (m) {
    case 0x8664:
        return "x86-64";
    case 0xAA64:
        return "ARM64";
    case 0x014C:
        return "x86";
    case 0x01C4:
        return "ARM";
    default:
        return "an unknown CPU";
    }
}

/* A Windows DLL (PE/COFF): "a Windows DLL for ARM64". */
static bool describe_pe(int fd, char *what, size_t size, char *entry, size_t entry_size) {
    unsigned char dos[64], coff[24], opt[2];
    if (!read_at(fd, 0, dos, sizeof dos) || memcmp(dos, "MZ", 2) != 0)
        return false;
    uint64_t pe = le32(dos + 60);
    if (!read_at(fd, pe, coff, sizeof coff) || memcmp(coff, "PE\0\0", 4) != 0)
        return false;
    unsigned nsec = le16(coff + 6), opt_size = le16(coff + 20);
    snprintf(what, size, "a Windows DLL for %s", pe_machine(le16(coff + 4)));
    uint64_t optional = pe + 24, sections = optional + opt_size;
    if (!read_at(fd, optional, opt, 2))
        return true;
    /* The export table's entry in the data directories: PE32+ or PE32. */
    uint64_t dirs = optional + (le16(opt) == 0x20b ? 112 : 96);
    unsigned char export_dir[4];
    if (dirs + 8 <= sections && read_at(fd, dirs, export_dir, 4))
        pe_entry(fd, sections, nsec, le32(export_dir), entry, entry_size);
    return true;
}

static const char *macho_cpu(uint32_t cpu) {
    switch (cpu) {
    case 0x01000007:
        return "x86-64";
    case 0x0100000C:
        return "arm64";
    case 7:
        return "x86";
    case 12:
        return "arm";
    default:
        return "an unknown CPU";
    }
}

/* Whether symbol `k` of the symbol table at symoff (strings at stroff) is
 * a defined external PJRT entry; its name (without C's "_") into entry. */
static bool macho_symbol(int fd, uint64_t base, const unsigned char *symtab, uint32_t k,
                         char *entry, size_t size) {
    unsigned char sym[16];
    char name[64] = {0};
    if (!read_at(fd, base + le32(symtab + 8) + 16ull * k, sym, sizeof sym))
        return false;
    bool defined_external = (sym[4] & 0x01) != 0 && (sym[4] & 0x0e) == 0x0e;
    if (!defined_external ||
        pread(fd, name, sizeof name - 1, (off_t)(base + le32(symtab + 16) + le32(sym))) <= 0 ||
        !is_entry(name))
        return false;
    snprintf(entry, size, "%s", name + 1);
    return true;
}

/* A PJRT entry among the Mach-O image's defined external symbols: those
 * LC_DYSYMTAB names (iextdefsym, nextdefsym), or without it the first
 * MAX_NAMES of LC_SYMTAB; the image starts at `base`. */
static void macho_entry(int fd, uint64_t base, char *entry, size_t size) {
    unsigned char h[32], symtab[24] = {0}, lc[24];
    uint32_t first = 0, count = 0;
    if (!read_at(fd, base, h, sizeof h) || le32(h) != 0xfeedfacf)
        return;
    uint64_t at = base + 32;
    for (uint32_t i = 0, n = le32(h + 16); i < n && i < 4096; i++, at += le32(lc + 4)) {
        if (!read_at(fd, at, lc, sizeof lc) || le32(lc + 4) < 8)
            return;
        if (le32(lc) == 0x2) /* LC_SYMTAB: symoff, nsyms, stroff, strsize */
            memcpy(symtab, lc, sizeof symtab);
        if (le32(lc) == 0xb) /* LC_DYSYMTAB: ilocalsym, nlocalsym, iextdefsym, nextdefsym */
            first = le32(lc + 16), count = le32(lc + 20) ? le32(lc + 20) : UINT32_MAX;
    }
    if (le32(symtab) != 0x2)
        return;
    uint32_t nsyms = le32(symtab + 12);
    if (count == 0 || count == UINT32_MAX)
        first = 0, count = nsyms;
    for (uint32_t k = first; k < nsyms && k - first < count && k - first < MAX_NAMES; k++)
        if (macho_symbol(fd, base, symtab, k, entry, size))
            return;
}

/* A macOS library (Mach-O, 64-bit, or universal). */
static bool describe_macho(int fd, char *what, size_t size, char *entry, size_t entry_size) {
    unsigned char h[8];
    if (!read_at(fd, 0, h, sizeof h))
        return false;
    if (le32(h) == 0xfeedfacf) {
        snprintf(what, size, "a macOS library (Mach-O) for %s", macho_cpu(le32(h + 4)));
        macho_entry(fd, 0, entry, entry_size);
        return true;
    }
    if (memcmp(h, "\xca\xfe\xba\xbe", 4) != 0)
        return false;
    /* Universal: big-endian fat_arch records (cputype, subtype, offset, size, align). */
    uint32_t n = (uint32_t)h[4] << 24 | (uint32_t)h[5] << 16 | (uint32_t)h[6] << 8 | h[7];
    if (n == 0 || n > 16)
        return false; /* also a Java class file's magic, with its version here */
    size_t used = (size_t)snprintf(what, size, "a macOS universal library (Mach-O) for");
    for (uint32_t i = 0; i < n && used < size; i++) {
        unsigned char a[20];
        if (!read_at(fd, 8 + 20ull * i, a, sizeof a))
            break;
        uint32_t cpu = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
        uint32_t off = (uint32_t)a[8] << 24 | (uint32_t)a[9] << 16 | (uint32_t)a[10] << 8 | a[11];
        used +=
            (size_t)snprintf(what + used, size - used, "%s %s", i ? " and" : "", macho_cpu(cpu));
        if (entry[0] == '\0')
            macho_entry(fd, off, entry, entry_size);
    }
    return true;
}

bool pjdl__describe_foreign(const char *path, char *out, size_t size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char what[160] = {0}, entry[64] = {0};
    bool known = describe_pe(fd, what, sizeof what, entry, sizeof entry) ||
                 describe_macho(fd, what, sizeof what, entry, sizeof entry);
    close(fd);
    if (!known)
        return false;
    const char *alone = "GetPjrtApi";
    snprintf(out, size, "it is %s, not a library for this system (%s); it exports %s%s%s", what,
             PJDL_THIS_SYSTEM, entry[0] ? entry : "no PJRT entry symbol",
             entry[0] && strcmp(entry, alone) != 0 ? " instead of " : "",
             entry[0] && strcmp(entry, alone) != 0 ? alone : "");
    return true;
}
