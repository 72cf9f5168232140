/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/kubelet-version.h"

#include "shared/sd-dl.h"
#include "shared/util.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>

#define SECTION_NAMES_MAX (64 * 1024)    /* bytes of the section name table read */
#define BUILDINFO_MAX (4 * 1024 * 1024)  /* bytes of .go.buildinfo read (k3s: about 40 KiB) */
#define SECTIONS_MAX 4096
#define JOURNAL_PIDS_MAX 64             /* processes of the unit's cgroup matched in the journal */
#define JOURNAL_FIRST_ENTRIES 1000      /* entries read forward from the unit's processes' first */
#define JOURNAL_LAST_ENTRIES 20000      /* entries of the unit read back from the end otherwise */

void kubelet_version_done(KubeletVersion *v) {
        if (!v)
                return;
        free(v->text);
        free(v->path);
        *v = (KubeletVersion) {};
}

static int read_at(int fd, uint64_t off, void *buf, size_t len) {
        if (off > (uint64_t) INT64_MAX)
                return -EINVAL;
        ssize_t n = pread(fd, buf, len, (off_t) off);
        return n == (ssize_t) len ? 0 : -EIO;
}

static uint64_t le(const unsigned char *p, size_t n) {
        uint64_t v = 0;
        for (size_t i = n; i > 0; i--)
                v = v << 8 | p[i - 1];
        return v;
}

/* The offset and size of the section named name in the little-endian ELF file fd (32 or 64 bit).
 * Returns 1 found, 0 not (or no such ELF), -ENOMEM. */
static int elf_section(int fd, const char *name, uint64_t *ret_off, uint64_t *ret_size) {
        unsigned char eh[64];
        if (read_at(fd, 0, eh, sizeof(eh)) < 0 || memcmp(eh, "\177ELF", 4) != 0 || eh[5] != 1)
                return 0;
        bool b64 = eh[4] == 2;
        if (!b64 && eh[4] != 1)
                return 0;
        uint64_t shoff = b64 ? le(eh + 0x28, 8) : le(eh + 0x20, 4);
        size_t shentsize = le(eh + (b64 ? 0x3a : 0x2e), 2);
        size_t shnum = le(eh + (b64 ? 0x3c : 0x30), 2);
        size_t shstrndx = le(eh + (b64 ? 0x3e : 0x32), 2);
        size_t need = b64 ? 0x40 : 0x28;
        if (shoff == 0 || shentsize < need || shnum == 0 || shnum > SECTIONS_MAX || shstrndx >= shnum)
                return 0;
        _cleanup_free_ unsigned char *sh = malloc(shentsize * shnum);
        if (!sh)
                return -ENOMEM;
        if (read_at(fd, shoff, sh, shentsize * shnum) < 0)
                return 0;
#define SH_NAME(s) le((s), 4)
#define SH_OFF(s) (b64 ? le((s) + 0x18, 8) : le((s) + 0x10, 4))
#define SH_SIZE(s) (b64 ? le((s) + 0x20, 8) : le((s) + 0x14, 4))
        const unsigned char *strsh = sh + shstrndx * shentsize;
        uint64_t stroff = SH_OFF(strsh), strsize = SH_SIZE(strsh);
        if (strsize == 0 || strsize > SECTION_NAMES_MAX)
                return 0;
        _cleanup_free_ char *names = malloc(strsize + 1);
        if (!names)
                return -ENOMEM;
        if (read_at(fd, stroff, names, strsize) < 0)
                return 0;
        names[strsize] = 0;
        for (size_t i = 0; i < shnum; i++) {
                const unsigned char *s = sh + i * shentsize;
                uint64_t n = SH_NAME(s);
                if (n >= strsize || !streq(names + n, name))
                        continue;
                *ret_off = SH_OFF(s);
                *ret_size = SH_SIZE(s);
                return 1;
        }
        return 0;
#undef SH_NAME
#undef SH_OFF
#undef SH_SIZE
}

/* An unsigned varint (encoding/binary.Uvarint) at *p below end; false when malformed. */
static bool uvarint(const unsigned char **p, const unsigned char *end, uint64_t *ret) {
        uint64_t v = 0;
        for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
                unsigned char b = *(*p)++;
                v |= (uint64_t) (b & 0x7f) << shift;
                if (!(b & 0x80)) {
                        *ret = v;
                        return true;
                }
        }
        return false;
}

/* "vMAJOR.MINOR..." at s: the two numbers; false when s is no such version. */
static bool parse_version(const char *s, size_t len, unsigned *major, unsigned *minor) {
        if (len < 4 || s[0] != 'v')
                return false;
        unsigned v[2] = {};
        size_t i = 1;
        for (int k = 0; k < 2; k++) {
                size_t start = i;
                while (i < len && s[i] >= '0' && s[i] <= '9' && i - start < 6)
                        v[k] = v[k] * 10 + (unsigned) (s[i++] - '0');
                if (i == start || (k == 0 && (i >= len || s[i++] != '.')))
                        return false;
        }
        if (v[0] == 0)
                return false;
        *major = v[0];
        *minor = v[1];
        return true;
}

/* The version in the module information text: "mod" or "dep\tk8s.io/kubernetes\tVERSION" first,
 * then the gitVersion of recorded -ldflags. Returns a malloc'd copy in *ret (NULL: none), or -ENOMEM. */
static int modinfo_version(const char *m, size_t len, char **ret, unsigned *major, unsigned *minor) {
        static const char *const keys[] = {
                "\nmod\tk8s.io/kubernetes\t",       /* the main package's module, when it is not the main module */
                "\ndep\tk8s.io/kubernetes\t",
                "k8s.io/component-base/version.gitVersion=",
        };
        *ret = NULL;
        for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
                size_t kl = strlen(keys[k]);
                for (const char *p = m; p + kl <= m + len; p++) {
                        if (memcmp(p, keys[k], kl) != 0)
                                continue;
                        const char *v = p + kl, *e = v;
                        while (e < m + len && *e != '\t' && *e != '\n' && *e != ' ' && *e != '\'' && *e != '"')
                                e++;
                        if (!parse_version(v, (size_t) (e - v), major, minor))
                                continue;
                        *ret = strndup(v, (size_t) (e - v));
                        return *ret ? 0 : -ENOMEM;
                }
        }
        return 0;
}

int kubelet_version_of_file(const char *root, const char *path, KubeletVersion *ret) {
        _cleanup_free_ char *full = path_join_root(root, path);
        if (!full)
                return -ENOMEM;
        _cleanup_close_ int fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                return errno == ENOMEM ? -ENOMEM : 0;
        uint64_t off = 0, size = 0;
        int r = elf_section(fd, ".go.buildinfo", &off, &size);
        if (r <= 0)
                return r;
        if (size < 32)
                return 0;
        size_t n = size > BUILDINFO_MAX ? BUILDINFO_MAX : (size_t) size;
        _cleanup_free_ unsigned char *b = malloc(n);
        if (!b)
                return -ENOMEM;
        if (read_at(fd, off, b, n) < 0)
                return 0;
        /* the header (Go's debug/buildinfo): magic, pointer size, flags; flag 2: the strings follow
         * inline, each a varint length and its bytes (Go 1.18 and later) */
        if (memcmp(b, "\377 Go buildinf:", 14) != 0 || !(b[15] & 2))
                return 0;
        const unsigned char *p = b + 32, *end = b + n;
        uint64_t l;
        for (int s = 0; s < 2; s++) {
                if (!uvarint(&p, end, &l) || l > (uint64_t) (end - p))
                        return 0;
                if (s == 1) {
                        unsigned major = 0, minor = 0;
                        _cleanup_free_ char *v = NULL;
                        /* the text starts with a 16-byte sentinel; a newline before it lets a dep on
                         * the first line match as well */
                        _cleanup_free_ char *m = malloc(l + 2);
                        if (!m)
                                return -ENOMEM;
                        m[0] = '\n';
                        memcpy(m + 1, p, l);
                        m[l + 1] = 0;
                        r = modinfo_version(m, l + 1, &v, &major, &minor);
                        if (r < 0 || !v)
                                return r;
                        char *pa = strdup(path);
                        if (!pa)
                                return -ENOMEM;
                        *ret = (KubeletVersion) { .major = major, .minor = minor, .text = TAKE_PTR(v), .path = pa };
                        return 0;
                }
                p += l;
        }
        return 0;
}

/* The version in one journal entry's MESSAGE when it is the kubelet's "Kubelet version" line:
 * Run() logs it first thing (kubernetes cmd/kubelet/app/server.go: klog.InfoS("Kubelet version",
 * "kubeletVersion", version.Get())), as the real v1.31.0 and v1.36.3 print it
 *   I1205 08:49:45.579386       1 server.go:545] "Kubelet version" kubeletVersion="v1.36.3"
 * in klog's text format and
 *   {"ts":...,"caller":"app/server.go:545","msg":"Kubelet version","v":0,"kubeletVersion":"v1.36.3"}
 * with --logging-format=json. k3s's embedded kubelet logs the same line into k3s's unit. */
static int version_in_entry(sd_journal *j, char **ret, unsigned *major, unsigned *minor) {
        const void *data;
        size_t len;
        *ret = NULL;
        if (sym_sd_journal_get_data(j, "MESSAGE", &data, &len) < 0 || len <= strlen("MESSAGE="))
                return 0;
        _cleanup_free_ char *m = strndup((const char *) data + strlen("MESSAGE="), len - strlen("MESSAGE="));
        if (!m)
                return -ENOMEM;
        if (!strstr(m, "\"Kubelet version\""))
                return 0;
        const char *v = strstr(m, "kubeletVersion");
        if (!v)
                return 0;
        v += strlen("kubeletVersion");
        v += strspn(v, "\"=: ");
        size_t l = strcspn(v, "\"' \t,}");
        if (!parse_version(v, l, major, minor))
                return 0;
        *ret = strndup(v, l);
        return *ret ? 0 : -ENOMEM;
}

/* The matches for the processes of the unit's cgroup in this boot (0: none added). */
static int add_process_matches(sd_journal *j, const char *root, const char *unit) {
        _cleanup_free_ char *procs_path = strdup_printf("/sys/fs/cgroup/system.slice/%s/cgroup.procs", unit);
        _cleanup_free_ char *procs_full = procs_path ? path_join_root(root, procs_path) : NULL;
        _cleanup_free_ char *boot_full = path_join_root(root, "/proc/sys/kernel/random/boot_id");
        _cleanup_free_ char *procs = NULL, *boot = NULL;
        if (!procs_full || !boot_full)
                return -ENOMEM;
        if (read_full_file(procs_full, 64 * 1024, &procs) < 0 || read_one_line(boot_full, &boot) < 0)
                return 0;
        /* _BOOT_ID is written without dashes (sd_id128_to_string()) */
        char id[33];
        size_t n = 0;
        for (const char *c = boot; *c && n < 32; c++)
                if (*c != '-')
                        id[n++] = *c;
        id[n] = 0;
        if (n != 32)
                return 0;
        int added = 0;
        char *save = NULL;
        for (char *t = strtok_r(procs, "\n", &save); t && added < JOURNAL_PIDS_MAX; t = strtok_r(NULL, "\n", &save)) {
                char match[32];
                if (strspn(t, "0123456789") != strlen(t) || strlen(t) > 10)
                        continue;
                snprintf(match, sizeof match, "_PID=%s", t);
                if (sym_sd_journal_add_match(j, match, 0) < 0)
                        return 0;
                added++;
        }
        _cleanup_free_ char *b = strdup_printf("_BOOT_ID=%s", id);
        _cleanup_free_ char *u = strdup_printf("_SYSTEMD_UNIT=%s", unit);
        if (!b || !u)
                return -ENOMEM;
        if (added > 0 && (sym_sd_journal_add_match(j, b, 0) < 0 || sym_sd_journal_add_match(j, u, 0) < 0))
                return 0;
        return added;
}

static sd_journal *journal_open(const char *root) {
        sd_journal *j = NULL;
        int r = !root || !*root || streq(root, "/")
                ? sym_sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM)
                : sym_sd_journal_open_directory(&j, root, SD_JOURNAL_OS_ROOT);
        return r < 0 ? NULL : j;
}

/* The version the unit's kubelet logged at its start: the running kubelet's (the first entries of
 * the processes now in the unit's cgroup, this boot), else the last one the unit logged (the
 * JOURNAL_LAST_ENTRIES newest entries). Where the executable names no version (Kubernetes' own
 * release binaries), this is the version of the kubelet that ran last, which an upgrade without a
 * restart makes stale. Nothing found, no journal, no libsystemd: *ret stays unknown. */
static int kubelet_version_from_journal(const char *root, const char *unit, KubeletVersion *ret) {
        if (!unit)
                return 0;
        /* no journal below root (most fixture trees): libsystemd is not even loaded */
        bool any = false;
        for (size_t i = 0; i < 2 && !any; i++) {
                _cleanup_free_ char *d = path_join_root(root, i == 0 ? "/var/log/journal" : "/run/log/journal");
                if (!d)
                        return -ENOMEM;
                any = access(d, F_OK) == 0;
        }
        if (!any || sd_dl_load() < 0)
                return 0;
        for (int pass = 0; pass < 2; pass++) {
                _cleanup_(sym_sd_journal_closep) sd_journal *j = journal_open(root);
                if (!j)
                        return 0;
                int r;
                if (pass == 0) {
                        r = add_process_matches(j, root, unit);
                        if (r <= 0) {
                                if (r < 0)
                                        return r;
                                continue;
                        }
                        r = sym_sd_journal_seek_head(j);
                } else {
                        _cleanup_free_ char *u = strdup_printf("_SYSTEMD_UNIT=%s", unit);
                        if (!u)
                                return -ENOMEM;
                        r = sym_sd_journal_add_match(j, u, 0);
                        if (r >= 0)
                                r = sym_sd_journal_seek_tail(j);
                }
                if (r < 0)
                        continue;
                for (unsigned n = 0; n < (pass == 0 ? JOURNAL_FIRST_ENTRIES : JOURNAL_LAST_ENTRIES); n++) {
                        r = pass == 0 ? sym_sd_journal_next(j) : sym_sd_journal_previous(j);
                        if (r <= 0)
                                break;
                        r = version_in_entry(j, &ret->text, &ret->major, &ret->minor);
                        if (r < 0)
                                return r;
                        if (ret->text) {
                                ret->path = strdup_printf("the journal of %s, its %s start", unit,
                                                          pass == 0 ? "running kubelet's" : "last logged");
                                return ret->path ? 0 : -ENOMEM;
                        }
                }
        }
        return 0;
}

int kubelet_version_read(const char *root, const char *unit, const char *exec, KubeletVersion *ret) {
        const char *candidates[3] = { exec };
        if (unit && (streq(unit, "k3s-agent.service") || streq(unit, "k3s.service")))
                candidates[1] = "/var/lib/rancher/k3s/data/current/bin/k3s";
        else if (unit && (streq(unit, "rke2-agent.service") || streq(unit, "rke2-server.service")))
                candidates[1] = "/var/lib/rancher/rke2/bin/kubelet";
        *ret = (KubeletVersion) {};
        for (size_t i = 0; i < ELEMENTSOF(candidates); i++) {
                if (!candidates[i] || candidates[i][0] != '/')
                        continue;
                int r = kubelet_version_of_file(root, candidates[i], ret);
                if (r < 0 || ret->text)
                        return r;
        }
        return kubelet_version_from_journal(root, unit, ret);
}
