/* Subprocess runner for the command's tests. */
/* posix_openpt and friends are X/Open. */
#define _XOPEN_SOURCE 700
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct sink {
    char *buf;
    size_t len, cap;
} sink;

static void sink_add(sink *s, const char *data, size_t n) {
    if (s->len + n + 1 > s->cap) {
        size_t cap = (s->cap ? s->cap * 2 : 4096);
        while (cap < s->len + n + 1)
            cap *= 2;
        char *b = realloc(s->buf, cap);
        if (b == NULL)
            return;
        s->buf = b;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, data, n);
    s->len += n;
    s->buf[s->len] = '\0';
}

static void child(const char *const *args, const char *const *env, int out_fd, int err_fd) {
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
        const char *eq = strchr(env[i], '=');
        if (eq == NULL)
            continue;
        char name[256];
        size_t n =
            (size_t)(eq - env[i]) < sizeof name - 1 ? (size_t)(eq - env[i]) : sizeof name - 1;
        memcpy(name, env[i], n);
        name[n] = '\0';
        if (eq[1] == '\0')
            unsetenv(name);
        else
            setenv(name, eq + 1, 1);
    }
    const char *argv[64];
    size_t n = 0;
    argv[n++] = PJDL_CLI_PATH;
    for (size_t i = 0; args[i] != NULL && n < 63; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    execv(PJDL_CLI_PATH, (char *const *)argv);
    fprintf(stderr, "exec %s: %s\n", PJDL_CLI_PATH, strerror(errno));
    _exit(127);
}

static bool run(const char *const *args, const char *const *env, int timeout_s, bool tty,
                cli_run *out) {
    memset(out, 0, sizeof *out);
    int po[2], pe[2];
    if (pipe(po) != 0)
        return false;
    if (tty) {
        int master = posix_openpt(O_RDWR | O_NOCTTY);
        if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0)
            return false;
        int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
        if (slave < 0)
            return false;
        pe[0] = master;
        pe[1] = slave;
    } else if (pipe(pe) != 0) {
        return false;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        close(po[0]);
        close(pe[0]);
        child(args, env, po[1], pe[1]);
    }
    close(po[1]);
    close(pe[1]);
    sink so = {0}, se = {0};
    sink_add(&so, "", 0);
    sink_add(&se, "", 0);
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    time_t deadline = time(NULL) + timeout_s;
    int open_fds = 2;
    bool killed = false;
    while (open_fds > 0) {
        int left = (int)(deadline - time(NULL));
        if (left <= 0) {
            kill(pid, SIGKILL);
            killed = true;
            break;
        }
        if (poll(fds, 2, left * 1000) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buf[4096];
            ssize_t n = read(fds[i].fd, buf, sizeof buf); /* a pty master says EIO at the end */
            if (n > 0) {
                sink_add(i == 0 ? &so : &se, buf, (size_t)n);
            } else {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
    for (int i = 0; i < 2; i++)
        if (fds[i].fd >= 0)
            close(fds[i].fd);
    int status = 0;
    waitpid(pid, &status, 0);
    out->out = so.buf;
    out->err = se.buf;
    if (WIFEXITED(status)) {
        out->exit_code = WEXITSTATUS(status);
    } else {
        out->exit_code = -1;
        out->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    }
    if (killed)
        fprintf(stderr, "command timed out after %d s\n", timeout_s);
    return true;
}

bool cli_run_command(const char *const *args, const char *const *env, int timeout_s, cli_run *out) {
    return run(args, env, timeout_s, false, out);
}

bool cli_run_command_tty(const char *const *args, const char *const *env, int timeout_s,
                         cli_run *out) {
    return run(args, env, timeout_s, true, out);
}

void cli_run_free(cli_run *r) {
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

const char *cli_ref_plugin(void) {
    const char *p = getenv("PJRT_REF_PLUGIN");
    return p ? p : "";
}

const char *cli_broken_plugin(const char *name) {
    static char path[4][1024];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/libbroken_%s.so", PJDL_BROKEN_DIR, name);
    return p;
}

bool cli_has_result(const char *text, const char *status, const char *check) {
    char line[128];
    snprintf(line, sizeof line, "%-11s %s ", status, check);
    size_t n = strlen(line);
    for (const char *p = text; p != NULL && *p; p = strchr(p, '\n')) {
        if (*p == '\n')
            p++;
        if (strncmp(p, line, n) == 0)
            return true;
    }
    return false;
}
