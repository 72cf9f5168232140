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

static int load_search_path(ParseState *st, const char *root, const PolicyFileAs *as) {
        int dfd[ELEMENTSOF(search_dirs)], cfd[ELEMENTSOF(search_dirs)];
        char *dpath[ELEMENTSOF(search_dirs)] = {}, *cpath[ELEMENTSOF(search_dirs)] = {};
        DropInEntry *entries = NULL;
        size_t n_entries = 0, as_dir = SIZE_MAX;
        const char *as_name = NULL;
        int r = 0;

        if (as && file_as_slot(as->path, &as_dir, &as_name) < 0) {
                st->rank++;
                r = err_file(st, as->path,
                             "not a policy file nodeswap reads: nodeswap.conf or nodeswap.conf.d/NAME.conf in "
                             "/etc/nodeswap, /run/nodeswap, /usr/local/lib/nodeswap or /usr/lib/nodeswap");
                return r < 0 ? r : 0;
        }

        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++)
                dfd[i] = cfd[i] = -EBADF;

        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++) {
                dpath[i] = path_join_root(root, search_dirs[i]);
                cpath[i] = dpath[i] ? strdup_printf("%s/nodeswap.conf.d", dpath[i]) : NULL;
                if (!dpath[i] || !cpath[i]) {
                        r = -ENOMEM;
                        goto finish;
                }
                r = open_search_dir(st, AT_FDCWD, dpath[i], dpath[i], &dfd[i]);
                if (r < 0)
                        goto finish;
                if (dfd[i] >= 0) {
                        r = open_search_dir(st, dfd[i], "nodeswap.conf.d", cpath[i], &cfd[i]);
                        if (r < 0)
                                goto finish;
                }
        }

        /* The main file: the first one found (or masked) wins, only one is read. */
        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++) {
                if (i == as_dir && !as_name) {
                        /* --policy-file-as: this file is here, whatever the directory holds. */
                        r = load_file_as(st, as);
                        if (r < 0)
                                goto finish;
                        break;
                }
                if (dfd[i] < 0)
                        continue;
                _cleanup_free_ char *display = strdup_printf("%s/nodeswap.conf", dpath[i]);
                if (!display) {
                        r = -ENOMEM;
                        goto finish;
                }
                r = load_file(st, dfd[i], "nodeswap.conf", display, true);
                if (r == -ENOENT)
                        continue;
                if (r < 0)
                        goto finish;
                break;
        }

        /* Drop-ins: one per file name, from the first directory that has it. */
        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++) {
                if (cfd[i] < 0)
                        continue;
                int dup_fd = fcntl(cfd[i], F_DUPFD_CLOEXEC, 3);
                if (dup_fd < 0) {
                        r = record_read_error(st, cpath[i], "read directory", -errno);
                        if (r < 0)
                                goto finish;
                        continue;
                }
                DIR *d = fdopendir(dup_fd);
                if (!d) {
                        close(dup_fd);
                        r = record_read_error(st, cpath[i], "read directory", -errno);
                        if (r < 0)
                                goto finish;
                        continue;
                }
                struct dirent *de;
                while ((errno = 0, de = readdir(d))) {
                        if (de->d_name[0] == '.' || !endswith(de->d_name, ".conf"))
                                continue;
                        bool seen = false;
                        for (size_t k = 0; k < n_entries; k++)
                                if (streq(entries[k].name, de->d_name))
                                        seen = true;
                        if (seen)
                                continue;
                        DropInEntry *n = realloc(entries, sizeof(DropInEntry) * (n_entries + 1));
                        if (!n) {
                                closedir(d);
                                r = -ENOMEM;
                                goto finish;
                        }
                        entries = n;
                        entries[n_entries].name = strdup(de->d_name);
                        entries[n_entries].dir = i;
                        if (!entries[n_entries].name) {
                                closedir(d);
                                r = -ENOMEM;
                                goto finish;
                        }
                        n_entries++;
                }
                if (errno != 0) {
                        r = record_read_error(st, cpath[i], "read directory", -errno);
                        if (r < 0) {
                                closedir(d);
                                goto finish;
                        }
                }
                closedir(d);
        }

        if (as_name) {
                /* --policy-file-as: the drop-in is in as_dir, in place of one of that name there or
                 * in a later directory; one in an earlier directory still hides it. */
                size_t k;
                for (k = 0; k < n_entries; k++)
                        if (streq(entries[k].name, as_name))
                                break;
                if (k == n_entries) {
                        DropInEntry *n = realloc(entries, sizeof(DropInEntry) * (n_entries + 1));
                        if (!n) {
                                r = -ENOMEM;
                                goto finish;
                        }
                        entries = n;
                        entries[k] = (DropInEntry) { .name = strdup(as_name), .dir = as_dir };
                        if (!entries[k].name) {
                                r = -ENOMEM;
                                goto finish;
                        }
                        n_entries++;
                } else if (entries[k].dir > as_dir)
                        entries[k].dir = as_dir;
        }
        if (n_entries > 0)
                qsort(entries, n_entries, sizeof(DropInEntry), dropin_cmp);
        for (size_t k = 0; k < n_entries; k++) {
                if (as_name && entries[k].dir == as_dir && streq(entries[k].name, as_name)) {
                        r = load_file_as(st, as);
                        if (r < 0)
                                goto finish;
                        continue;
                }
                _cleanup_free_ char *display = strdup_printf("%s/%s", cpath[entries[k].dir], entries[k].name);
                if (!display) {
                        r = -ENOMEM;
                        goto finish;
                }
                r = load_file(st, cfd[entries[k].dir], entries[k].name, display, true);
                if (r == -ENOENT)       /* vanished since we listed it */
                        continue;
                if (r < 0)
                        goto finish;
        }
        r = 0;

finish:
        for (size_t i = 0; i < ELEMENTSOF(search_dirs); i++) {
                if (dfd[i] >= 0)
                        close(dfd[i]);
                if (cfd[i] >= 0)
                        close(cfd[i]);
                free(dpath[i]);
                free(cpath[i]);
        }
        for (size_t k = 0; k < n_entries; k++)
                free(entries[k].name);
        free(entries);
        return r;
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
