/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/zswap.h"

#include <ctype.h>

/* /proc/crypto lists every algorithm; a few dozen KiB on a large kernel. */
#define CRYPTO_MAX (1024 * 1024)
/* COMMAND_LINE_SIZE is at most 4096 on the architectures nodeswap runs on; leave room. */
#define CMDLINE_MAX (64 * 1024)

static const char *const zswap_param_names[_ZSWAP_PARAM_MAX] = {
        [ZSWAP_PARAM_COMPRESSOR] = "compressor",
        [ZSWAP_PARAM_MAX_POOL_PERCENT] = "max_pool_percent",
        [ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT] = "accept_threshold_percent",
        [ZSWAP_PARAM_SHRINKER_ENABLED] = "shrinker_enabled",
        [ZSWAP_PARAM_ENABLED] = "enabled",
};

const char *zswap_param_to_string(ZswapParam p) {
        return p < _ZSWAP_PARAM_MAX ? zswap_param_names[p] : NULL;
}

int zswap_param_from_string(const char *s) {
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++)
                if (streq_ptr(s, zswap_param_names[i]))
                        return (int) i;
        return -EINVAL;
}

void zswap_state_done(ZswapState *z) {
        free(z->compressor);
        free(z->zpool);
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++) {
                free(z->param[i]);
                free(z->cmdline[i]);
        }
        strv_free(z->compressors_offered);
        *z = (ZswapState) { .enabled = -1, .max_pool_percent = -1 };
}

/* The contents of a small file below root without its one trailing newline; NULL when absent or
 * unreadable (*ret_oom on ENOMEM). */
static char *read_value(const char *root, const char *path, bool *ret_oom) {
        _cleanup_free_ char *p = path_join_root(root, path);
        char *buf = NULL;
        if (!p) {
                *ret_oom = true;
                return NULL;
        }
        int r = read_full_file(p, 4096, &buf);
        if (r == -ENOMEM)
                *ret_oom = true;
        if (r < 0)
                return NULL;
        size_t l = strlen(buf);
        if (l > 0 && buf[l - 1] == '\n')
                buf[l - 1] = 0;
        return buf;
}

static char *param_path(ZswapParam p) {
        return strdup_printf(ZSWAP_PARAMETERS_DIR "/%s", zswap_param_to_string(p));
}

/* The kernel's kstrtobool(): the first character decides, "on"/"off" by the second. -1: neither. */
static int kernel_bool(const char *s) {
        if (!s)
                return -1;
        switch (s[0]) {
        case 'y': case 'Y': case 't': case 'T': case '1':
                return 1;
        case 'n': case 'N': case 'f': case 'F': case '0':
                return 0;
        case 'o': case 'O':
                if (s[1] == 'n' || s[1] == 'N')
                        return 1;
                if (s[1] == 'f' || s[1] == 'F')
                        return 0;
                return -1;
        case 0:
                return 1;       /* a bare "zswap.enabled" on the command line sets a bool */
        default:
                return -1;
        }
}

bool zswap_value_equal(ZswapParam p, const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        if (p == ZSWAP_PARAM_ENABLED || p == ZSWAP_PARAM_SHRINKER_ENABLED) {
                int x = kernel_bool(a), y = kernel_bool(b);
                return x >= 0 && x == y;
        }
        return streq(a, b);
}

int zswap_probe_enabled(const char *root, ZswapState *z) {
        bool oom = false;
        _cleanup_free_ char *path = param_path(ZSWAP_PARAM_ENABLED);
        _cleanup_free_ char *v = path ? read_value(root, path, &oom) : NULL;
        if (!path || oom)
                return -ENOMEM;
        z->enabled = !v ? -1 : kernel_bool(v) == 1;
        return 0;
}

int zswap_parse_cmdline(const char *cmdline, char *ret[static _ZSWAP_PARAM_MAX]) {
        char *found[_ZSWAP_PARAM_MAX] = {};
        const char *c = cmdline;
        int r = 0;

        while (c && *c) {
                while (isspace((unsigned char) *c))
                        c++;
                if (!*c)
                        break;
                /* One argument, as the kernel's next_arg() splits them: quotes group white space
                 * and are dropped. */
                _cleanup_free_ char *arg = malloc(strlen(c) + 1);
                if (!arg) {
                        r = -ENOMEM;
                        goto finish;
                }
                size_t n = 0;
                bool quoted = false;
                for (; *c && (quoted || !isspace((unsigned char) *c)); c++)
                        if (*c == '"')
                                quoted = !quoted;
                        else
                                arg[n++] = *c;
                arg[n] = 0;
                if (streq(arg, "--"))
                        break;          /* what follows is init's */
                if (strncmp(arg, "zswap.", 6) != 0)
                        continue;
                char *name = arg + 6, *eq = strchr(name, '=');
                if (eq)
                        *eq = 0;
                for (char *k = name; *k; k++)
                        if (*k == '-')
                                *k = '_';
                int p = zswap_param_from_string(name);
                if (p < 0)
                        continue;
                char *v = strdup(eq ? eq + 1 : "");
                if (!v) {
                        r = -ENOMEM;
                        goto finish;
                }
                free(found[p]);
                found[p] = v;   /* the last one wins, as in the kernel */
        }
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++) {
                ret[i] = found[i];
                found[i] = NULL;
        }
finish:
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++)
                free(found[i]);
        return r;
}

static char *field_value(const char *line, const char *key) {
        size_t l = strlen(key);
        if (strncmp(line, key, l) != 0)
                return NULL;
        const char *v = line + l;
        v += strspn(v, " \t");
        if (*v != ':')
                return NULL;
        v++;
        v += strspn(v, " \t");
        size_t e = strcspn(v, "\n");
        while (e > 0 && isspace((unsigned char) v[e - 1]))
                e--;
        return strndup(v, e);
}

int zswap_parse_crypto(const char *text, char ***ret) {
        _cleanup_strv_free_ char **names = calloc(1, sizeof(char *));
        _cleanup_free_ char *name = NULL;
        if (!names)
                return -ENOMEM;
        for (const char *line = text; line && *line;) {
                const char *next = strchr(line, '\n');
                char *v;
                if ((v = field_value(line, "name"))) {
                        free(name);
                        name = v;
                } else if ((v = field_value(line, "type"))) {
                        bool comp = streq(v, "scomp") || streq(v, "acomp") || streq(v, "compression");
                        free(v);
                        if (comp && name && *name && !strv_contains(names, name) && strv_extend(&names, name) < 0)
                                return -ENOMEM;
                } else if (line[0] == '\n') {
                        free(name);
                        name = NULL;
                }
                line = next ? next + 1 : NULL;
        }
        *ret = names;
        names = NULL;
        return 0;
}

int zswap_probe_params(const char *root, ZswapState *z) {
        bool oom = false;

        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++) {
                _cleanup_free_ char *path = param_path(i);
                if (!path)
                        return -ENOMEM;
                free(z->param[i]);
                z->param[i] = read_value(root, path, &oom);
                if (oom)
                        return -ENOMEM;
        }
        const char *en = z->param[ZSWAP_PARAM_ENABLED];
        z->enabled = !en ? -1 : kernel_bool(en) == 1;
        free(z->compressor);
        z->compressor = NULL;
        if (z->param[ZSWAP_PARAM_COMPRESSOR] && !(z->compressor = strdup(z->param[ZSWAP_PARAM_COMPRESSOR])))
                return -ENOMEM;
        int v;
        z->max_pool_percent = z->param[ZSWAP_PARAM_MAX_POOL_PERCENT] &&
                safe_atoi(z->param[ZSWAP_PARAM_MAX_POOL_PERCENT], &v) >= 0 ? v : -1;
        free(z->zpool);
        z->zpool = read_value(root, ZSWAP_PARAMETERS_DIR "/zpool", &oom);
        if (oom)
                return -ENOMEM;

        _cleanup_free_ char *cmdline = read_value(root, "/proc/cmdline", &oom);
        if (oom)
                return -ENOMEM;
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++) {
                free(z->cmdline[i]);
                z->cmdline[i] = NULL;
        }
        if (cmdline && zswap_parse_cmdline(cmdline, z->cmdline) < 0)
                return -ENOMEM;

        strv_free(z->compressors_offered);
        z->compressors_offered = NULL;
        _cleanup_free_ char *cp = path_join_root(root, "/proc/crypto");
        _cleanup_free_ char *crypto = NULL;
        if (!cp)
                return -ENOMEM;
        int r = read_full_file(cp, CRYPTO_MAX, &crypto);
        if (r == -ENOMEM)
                return r;
        if (r >= 0 && zswap_parse_crypto(crypto, &z->compressors_offered) < 0)
                return -ENOMEM;
        z->params_read = true;
        return 0;
}

/* The parameters are world-readable; debugfs is root's (and may not be mounted). Nothing here is
 * an error: what cannot be read stays unknown. */
int zswap_probe_all(const char *root, ZswapState *z) {
        int r = zswap_probe_params(root, z);
        if (r < 0)
                return r;
        _cleanup_free_ char *stored = path_join_root(root, "/sys/kernel/debug/zswap/stored_pages");
        _cleanup_free_ char *wb = path_join_root(root, "/sys/kernel/debug/zswap/written_back_pages");
        if (!stored || !wb)
                return -ENOMEM;
        z->debugfs = read_u64_file(stored, &z->stored_pages) >= 0 &&
                     read_u64_file(wb, &z->written_back_pages) >= 0;
        if (!z->debugfs)
                z->stored_pages = z->written_back_pages = 0;
        return 0;
}
