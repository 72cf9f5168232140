/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading the policy: the search path, the trust checks on every file and directory, and the
 * entry points of policy.h.
 *
 * Decisions (documented for operators in conf/nodeswap.conf and nodeswap.conf(5)):
 *   - Policy files and the directories they sit in must be owned by root (or by the user running
 *     nodeswap) and not writable by group or others. Files are opened with O_NOFOLLOW: a symbolic
 *     link is refused, except a drop-in (or nodeswap.conf) linked to /dev/null, which masks that
 *     name in the directories searched after it.
 */

#include "policy/parse.h"
#include "policy/validate.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static const char *const search_dirs[] = {
        "/etc/nodeswap",
        "/run/nodeswap",
        "/usr/local/lib/nodeswap",
        "/usr/lib/nodeswap",
};

/* Files */

static bool is_dev_null_link(int dirfd, const char *name) {
        char target[64];
        ssize_t n = readlinkat(dirfd, name, target, sizeof(target) - 1);
        if (n < 0)
                return false;
        target[n] = 0;
        if (streq(target, "/dev/null"))
                return true;
        struct stat s;
        return fstatat(dirfd, name, &s, 0) >= 0 && S_ISCHR(s.st_mode) && s.st_rdev == makedev(1, 3);
}

/* Files and directories that may define the policy must be owned by root (or by whoever runs us:
 * a non-root "nodeswap check" trusts only itself) and not be writable by group or others.
 * Returns 1 when refused (the error is recorded), 0 when trusted, -ENOMEM. */
static int check_trusted(ParseState *st, const char *path, const struct stat *s, const char *what) {
        int r;

        if (s->st_uid != 0 && s->st_uid != geteuid())
                r = err_file(st, path, "%s is owned by uid %u, not root (mode %04o); refusing it", what,
                             (unsigned) s->st_uid, (unsigned) (s->st_mode & 07777));
        else if (s->st_mode & (S_IWGRP | S_IWOTH))
                r = err_file(st, path, "%s is writable by group or others (mode %04o); refusing it (chmod go-w)",
                             what, (unsigned) (s->st_mode & 07777));
        else
                return 0;
        return r < 0 ? r : 1;
}

static int read_fd(int fd, char **ret, size_t *ret_len) {
        return read_fd_full(fd, POLICY_FILE_MAX, false, ret, ret_len);
}

/* Reads and parses one policy file (name relative to dirfd). Returns 1 when the file exists (read,
 * or refused with an error recorded), 0 when it is a link to /dev/null and may_mask is set,
 * -ENOENT when it does not exist, -ENOMEM. */
static int load_file(ParseState *st, int dirfd, const char *name, const char *display, bool may_mask) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        struct stat s;
        size_t len = 0;
        int r;

        fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
        int open_errno = fd < 0 ? errno : 0;
        if (open_errno == ENOENT)
                return -ENOENT;
        if (open_errno == ELOOP && may_mask && is_dev_null_link(dirfd, name))
                return 0;

        st->rank++;
        st->p->found = true;
        if (fd < 0) {
                if (open_errno == ELOOP)
                        r = err_file(st, display, "is a symbolic link; policy files are not followed through "
                                     "links (only a link to /dev/null, which masks the name, is allowed)");
                else
                        r = record_read_error(st, display, "open", -open_errno);
                return r < 0 ? r : 1;
        }
        if (fstat(fd, &s) < 0)
                r = record_read_error(st, display, "stat", -errno);
        else if (!S_ISREG(s.st_mode))
                r = err_file(st, display, "not a regular file; refusing it");
        else {
                r = check_trusted(st, display, &s, "the file");
                if (r == 0) {
                        r = read_fd(fd, &buf, &len);
                        if (r == -EFBIG)
                                r = err_file(st, display, "the file is larger than %d bytes", POLICY_FILE_MAX);
                        else if (r < 0 && r != -ENOMEM)
                                r = record_read_error(st, display, "read", r);
                        else if (r == 0) {
                                r = strv_extend(&st->p->files, display);
                                if (r >= 0) {
                                        size_t n = strv_length(st->p->files);
                                        size_t *fr = realloc(st->file_ranks, sizeof(size_t) * n);
                                        if (!fr)
                                                r = -ENOMEM;
                                        else {
                                                st->file_ranks = fr;
                                                fr[n - 1] = st->rank;
                                                st->path = st->p->files[n - 1];
                                                parse_buffer(st, buf, len);
                                                st->path = display;
                                        }
                                }
                        }
                }
        }
        if (r == -ENOMEM || st->oom)
                return -ENOMEM;
        return 1;
}

/* Parses text that is not a file of the search path (--config -) as one policy file named display. */
static int load_text(ParseState *st, const char *display, const char *text, size_t len) {
        st->rank++;
        st->p->found = true;
        int r = strv_extend(&st->p->files, display);
        if (r < 0)
                return r;
        size_t n = strv_length(st->p->files);
        size_t *fr = realloc(st->file_ranks, sizeof(size_t) * n);
        if (!fr)
                return -ENOMEM;
        st->file_ranks = fr;
        fr[n - 1] = st->rank;
        st->path = st->p->files[n - 1];
        parse_buffer(st, text, len);
        return st->oom ? -ENOMEM : 1;
}

typedef struct DropInEntry {
        char *name;
        size_t dir;
} DropInEntry;

static int dropin_cmp(const void *a, const void *b) {
        return strcmp(((const DropInEntry *) a)->name, ((const DropInEntry *) b)->name);
}

/* Opens a directory of the search path; -1 when absent or refused (error recorded). */
static int open_search_dir(ParseState *st, int parent, const char *name, const char *display, int *ret_fd) {
        struct stat s;
        int r;

        *ret_fd = -EBADF;
        int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                if (errno == ENOENT)
                        return 0;
                if (errno == ENOTDIR)
                        r = err_file(st, display, "not a directory; refusing it");
                else
                        r = record_read_error(st, display, "open directory", -errno);
                return r < 0 ? r : 0;
        }
        if (fstat(fd, &s) < 0) {
                r = record_read_error(st, display, "stat", -errno);
                close(fd);
                return r < 0 ? r : 0;
        }
        r = check_trusted(st, display, &s, "the directory");
        if (r != 0) {
                close(fd);
                return r < 0 ? r : 0;
        }
        *ret_fd = fd;
        return 0;
}

/* Where --policy-file-as puts its file: the index of the search directory, and the drop-in name
 * (NULL for the main file). Returns 0, or -EINVAL when path is not a file nodeswap reads. */
static int file_as_slot(const char *path, size_t *ret_dir, const char **ret_name) {
        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++) {
                size_t l = strlen(search_dirs[i]);
                if (strncmp(path, search_dirs[i], l) != 0 || path[l] != '/')
                        continue;
                const char *rest = path + l;
                if (streq(rest, "/nodeswap.conf")) {
                        *ret_dir = i;
                        *ret_name = NULL;
                        return 0;
                }
                const char *name = startswith(rest, "/nodeswap.conf.d/") ? rest + strlen("/nodeswap.conf.d/") : NULL;
                if (name && name[0] != '.' && !strchr(name, '/') && endswith(name, ".conf") &&
                    !streq(name, ".conf")) {
                        *ret_dir = i;
                        *ret_name = name;
                        return 0;
                }
        }
        return -EINVAL;
}

/* Reads the file that --policy-file-as puts in place of another. */
static int load_file_as(ParseState *st, const PolicyFileAs *as) {
        int r = load_file(st, AT_FDCWD, as->file, as->file, false);
        if (r == -ENOENT) {
                st->rank++;
                r = record_read_error(st, as->file, "open", -ENOENT);
                return r < 0 ? r : 1;
        }
        return r;
}

/* The search path below a root, opened: each directory and its nodeswap.conf.d (fd -EBADF: absent
 * or refused), and the drop-ins to read, one per name. */
typedef struct SearchPath {
        int dfd[ELEMENTSOF(search_dirs)], cfd[ELEMENTSOF(search_dirs)];
        char *dpath[ELEMENTSOF(search_dirs)], *cpath[ELEMENTSOF(search_dirs)];
        DropInEntry *entries;
        size_t n_entries;
        size_t as_dir;          /* --policy-file-as: the directory of the file it replaces, or SIZE_MAX */
        const char *as_name;    /* ... the drop-in's name there, NULL: nodeswap.conf */
} SearchPath;

static void search_path_done(SearchPath *sp) {
        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++) {
                if (sp->dfd[i] >= 0)
                        close(sp->dfd[i]);
                if (sp->cfd[i] >= 0)
                        close(sp->cfd[i]);
                free(sp->dpath[i]);
                free(sp->cpath[i]);
        }
        for (size_t k = 0; k < sp->n_entries; k++)
                free(sp->entries[k].name);
        free(sp->entries);
}

static int search_path_open(ParseState *st, const char *root, SearchPath *sp) {
        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++) {
                sp->dpath[i] = path_join_root(root, search_dirs[i]);
                sp->cpath[i] = sp->dpath[i] ? strdup_printf("%s/nodeswap.conf.d", sp->dpath[i]) : NULL;
                if (!sp->dpath[i] || !sp->cpath[i])
                        return -ENOMEM;
                int r = open_search_dir(st, AT_FDCWD, sp->dpath[i], sp->dpath[i], &sp->dfd[i]);
                if (r < 0)
                        return r;
                if (sp->dfd[i] >= 0) {
                        r = open_search_dir(st, sp->dfd[i], "nodeswap.conf.d", sp->cpath[i], &sp->cfd[i]);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

/* The main file: the first one found (or masked) wins, only one is read. */
static int load_main_file(ParseState *st, const SearchPath *sp, const PolicyFileAs *as) {
        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++) {
                if (i == sp->as_dir && !sp->as_name)
                        /* --policy-file-as: this file is here, whatever the directory holds. */
                        return load_file_as(st, as);
                if (sp->dfd[i] < 0)
                        continue;
                _cleanup_free_ char *display = strdup_printf("%s/nodeswap.conf", sp->dpath[i]);
                if (!display)
                        return -ENOMEM;
                int r = load_file(st, sp->dfd[i], "nodeswap.conf", display, true);
                if (r != -ENOENT)
                        return r;
        }
        return 0;
}

/* Adds a drop-in of this name from directory dir, unless an earlier directory has one. */
static int dropin_add(SearchPath *sp, const char *name, size_t dir) {
        for (size_t k = 0; k < sp->n_entries; k++)
                if (streq(sp->entries[k].name, name))
                        return 0;
        DropInEntry *n = realloc(sp->entries, sizeof(DropInEntry) * (sp->n_entries + 1));
        if (!n)
                return -ENOMEM;
        sp->entries = n;
        sp->entries[sp->n_entries] = (DropInEntry) { .name = strdup(name), .dir = dir };
        if (!sp->entries[sp->n_entries].name)
                return -ENOMEM;
        sp->n_entries++;
        return 0;
}

/* The drop-ins of directory i of the search path. */
static int list_dropins(ParseState *st, SearchPath *sp, size_t i) {
        int dup_fd = fcntl(sp->cfd[i], F_DUPFD_CLOEXEC, 3);
        if (dup_fd < 0)
                return record_read_error(st, sp->cpath[i], "read directory", -errno);
        DIR *d = fdopendir(dup_fd);
        if (!d) {
                int r = record_read_error(st, sp->cpath[i], "read directory", -errno);
                close(dup_fd);
                return r;
        }
        struct dirent *de;
        int r = 0;
        while ((errno = 0, de = readdir(d))) {
                if (de->d_name[0] == '.' || !endswith(de->d_name, ".conf"))
                        continue;
                r = dropin_add(sp, de->d_name, i);
                if (r < 0)
                        break;
        }
        if (r >= 0 && errno != 0)
                r = record_read_error(st, sp->cpath[i], "read directory", -errno);
        closedir(d);
        return r;
}

/* The drop-ins, one per file name, from the first directory that has it, read in name order. */
static int load_dropins(ParseState *st, SearchPath *sp, const PolicyFileAs *as) {
        int r;

        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++)
                if (sp->cfd[i] >= 0 && (r = list_dropins(st, sp, i)) < 0)
                        return r;

        if (sp->as_name) {
                /* --policy-file-as: the drop-in is in as_dir, in place of one of that name there or
                 * in a later directory; one in an earlier directory still hides it. */
                r = dropin_add(sp, sp->as_name, sp->as_dir);
                if (r < 0)
                        return r;
                for (size_t k = 0; k < sp->n_entries; k++)
                        if (streq(sp->entries[k].name, sp->as_name) && sp->entries[k].dir > sp->as_dir)
                                sp->entries[k].dir = sp->as_dir;
        }
        if (sp->n_entries > 0)
                qsort(sp->entries, sp->n_entries, sizeof(DropInEntry), dropin_cmp);
        for (size_t k = 0; k < sp->n_entries; k++) {
                const DropInEntry *e = &sp->entries[k];
                if (sp->as_name && e->dir == sp->as_dir && streq(e->name, sp->as_name)) {
                        r = load_file_as(st, as);
                        if (r < 0)
                                return r;
                        continue;
                }
                _cleanup_free_ char *display = strdup_printf("%s/%s", sp->cpath[e->dir], e->name);
                if (!display)
                        return -ENOMEM;
                r = load_file(st, sp->cfd[e->dir], e->name, display, true);
                if (r == -ENOENT)       /* vanished since we listed it */
                        continue;
                if (r < 0)
                        return r;
        }
        return 0;
}

static int load_search_path(ParseState *st, const char *root, const PolicyFileAs *as) {
        SearchPath sp = { .as_dir = SIZE_MAX };
        int r;

        if (as && file_as_slot(as->path, &sp.as_dir, &sp.as_name) < 0) {
                st->rank++;
                r = err_file(st, as->path,
                             "not a policy file nodeswap reads: nodeswap.conf or nodeswap.conf.d/NAME.conf in "
                             "/etc/nodeswap, /run/nodeswap, /usr/local/lib/nodeswap or /usr/lib/nodeswap");
                return r < 0 ? r : 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++)
                sp.dfd[i] = sp.cfd[i] = -EBADF;

        r = search_path_open(st, root, &sp);
        if (r >= 0)
                r = load_main_file(st, &sp, as);
        if (r >= 0)
                r = load_dropins(st, &sp, as);
        search_path_done(&sp);
        return r < 0 ? r : 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Checks across keys, after every file is merged */

static int policy_load_full(const char *root, const char *config, const PolicyFileAs *as, const char *text,
                            size_t text_len, const PolicyContext *ctx, Policy *ret_policy,
                            PolicyErrors *ret_errors) {
        Policy p;
        ParseState st = {};
        int r;

        if (!ret_policy || !policy_context_valid(ctx) || (as && (config || text || !as->path || !as->file)))
                return -EINVAL;

        r = policy_init_defaults(&p, ctx);
        if (r < 0)
                return r;
        st.p = &p;
        st.ctx = ctx;

        if (text)
                r = load_text(&st, config, text, text_len);
        else if (config) {
                /* Exactly that file, relative to the working directory, not below root. */
                r = load_file(&st, AT_FDCWD, config, config, false);
                if (r == -ENOENT) {
                        st.rank++;
                        r = record_read_error(&st, config, "open", -ENOENT);
                }
        } else
                r = load_search_path(&st, root, as);
        if (r < 0 || st.oom) {
                r = -ENOMEM;
                goto finish;
        }

        policy_check_merged(&st);
        if (st.oom) {
                r = -ENOMEM;
                goto finish;
        }

        if (st.n_errors > 0) {
                parse_state_sort_errors(&st);
                if (ret_errors) {
                        PolicyError *n = realloc(ret_errors->errors, sizeof(PolicyError) * (ret_errors->n + st.n_errors));
                        if (!n) {
                                r = -ENOMEM;
                                goto finish;
                        }
                        ret_errors->errors = n;
                        for (size_t i = 0; i < st.n_errors; i++) {
                                n[ret_errors->n++] = st.errors[i].e;
                                st.errors[i].e = (PolicyError) {};
                        }
                }
                r = st.read_error ?: -EINVAL;
                goto finish;
        }

        *ret_policy = p;
        p = (Policy) {};
        r = 0;

finish:
        policy_done(&p);
        parse_state_done(&st);
        return r;
}

int policy_load(const char *root, const char *config, const PolicyContext *ctx,
                Policy *ret_policy, PolicyErrors *ret_errors) {
        return policy_load_full(root, config, NULL, NULL, 0, ctx, ret_policy, ret_errors);
}

int policy_load_as(const char *root, const char *config, const PolicyFileAs *as, const PolicyContext *ctx,
                   Policy *ret_policy, PolicyErrors *ret_errors) {
        return policy_load_full(root, config, as, NULL, 0, ctx, ret_policy, ret_errors);
}

int policy_load_text(const char *name, const char *text, size_t len, const PolicyContext *ctx,
                     Policy *ret_policy, PolicyErrors *ret_errors) {
        if (!name || !text)
                return -EINVAL;
        return policy_load_full(NULL, name, NULL, text, len, ctx, ret_policy, ret_errors);
}
