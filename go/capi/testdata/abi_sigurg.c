/*
 * The library must not send the Go runtime's preemption signal (SIGURG) to
 * the thread that calls it: the signal can land after the call has returned,
 * and cut short whatever the host does then (PHP's usleep() returns EINTR;
 * nanosleep is never restarted). The library is linked with async
 * preemption off (Makefile, GO_LIB_LDFLAGS); this checks that it is.
 *
 * Each run is a fresh process (exec) that loads the library, chains a
 * counting SIGURG handler in front of Go's, and calls the store back to back
 * for a second from its main thread; it prints how many SIGURGs reached that
 * thread. The control run sets GODEBUG=asyncpreemptoff=0 in its initial
 * environment (which the runtime reads, and which overrides the built-in
 * default), and goes on for up to 5 s until it has drawn a signal: it must
 * draw one, or this workload proves nothing. The run
 * with the library's own default must draw none.
 * Usage: abi_sigurg path/to/libephpm_kv.so
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ephpm_kv_ops.h"

#define RUN_SECONDS 1
#define CONTROL_MAX_SECONDS 5 /* the control runs on until its first signal */
#define VALUE_SIZE (8 << 20)

static pid_t main_tid;
static atomic_long sigurg_here;
static struct sigaction go_action;

static void on_sigurg(int sig, siginfo_t *info, void *ctx)
{
	int saved = errno;
	if ((pid_t)syscall(SYS_gettid) == main_tid) { atomic_fetch_add(&sigurg_here, 1); }
	errno = saved;
	/* Go's handler still gets every signal, as the runtime asks of hosts. */
	if (go_action.sa_flags & SA_SIGINFO) {
		go_action.sa_sigaction(sig, info, ctx);
	} else if (go_action.sa_handler != SIG_DFL && go_action.sa_handler != SIG_IGN) {
		go_action.sa_handler(sig);
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One counting run: prints "sigurg N calls M" and exits 0, or exits 2. */
static int count_run(const char *path, int control)
{
	main_tid = (pid_t)syscall(SYS_gettid);
	void *lib = dlopen(path, RTLD_NOW | RTLD_NODELETE);
	if (!lib) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 2; }
	ephpm_kv_get_ops_fn get_ops = (ephpm_kv_get_ops_fn)dlsym(lib, "ephpm_kv_get_ops");
	if (!get_ops) { fprintf(stderr, "dlsym: %s\n", dlerror()); return 2; }
	const ephpm_kv_ops *ops = get_ops();
	ephpm_kv_error err;
	ephpm_kv_config cfg = { .max_value_size = 64 << 20 };
	/* The first call waits for the runtime to finish starting, so Go's
	 * handler is in place before ours goes in front of it. */
	if (ops->configure(&cfg, &err) != 0) { fprintf(stderr, "configure: %s\n", err.message); return 2; }
	struct sigaction sa = { 0 };
	sa.sa_sigaction = on_sigurg;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK; /* no SA_RESTART, as for PHP's sleeps */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGURG, &sa, &go_action) != 0) { perror("sigaction"); return 2; }

	/* 8 MiB values, back to back: each call spends milliseconds in Go and
	 * allocates enough to keep the collector busy, so with async
	 * preemption on, both sysmon (a goroutine past its 10 ms slice) and
	 * the collector (stack scans) signal this thread: 53 to 450 SIGURGs a
	 * second in 10 runs on 2 busy cores. */
	char *value = malloc(VALUE_SIZE), *buf = malloc(VALUE_SIZE);
	for (int i = 0; i < VALUE_SIZE; i++) { value[i] = (char)(i * 7 + i / 1000); }
	long calls = 0;
	double start = now();
	for (;;) {
		double t = now() - start;
		if (t >= CONTROL_MAX_SECONDS || (t >= RUN_SECONDS && (!control || atomic_load(&sigurg_here) > 0))) { break; }
		size_t len = 0;
		if (ops->set("k", 1, value, VALUE_SIZE, 0, &err) != 1) { fprintf(stderr, "set: %s\n", err.message); return 2; }
		if (ops->get("k", 1, buf, VALUE_SIZE, &len, &err) != 1 || len != VALUE_SIZE) {
			fprintf(stderr, "get: %s\n", err.message);
			return 2;
		}
		calls += 2;
	}
	printf("sigurg %ld calls %ld\n", atomic_load(&sigurg_here), calls);
	return 0;
}

/* Runs this program again in count mode with env; returns the SIGURGs it saw, or -1. */
static long spawn_count(const char *self, const char *path, char *const env[])
{
	int fd[2];
	if (pipe(fd) != 0) { perror("pipe"); return -1; }
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		char *const argv[] = { (char *)self, (char *)path, env[0] ? "control" : "count", NULL };
		execve(self, argv, env);
		perror("execve");
		_exit(2);
	}
	close(fd[1]);
	char out[128] = { 0 };
	ssize_t n = read(fd[0], out, sizeof out - 1);
	close(fd[0]);
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || n <= 0) {
		fprintf(stderr, "count run failed (status %d): %s\n", status, out);
		return -1;
	}
	long sigurg, calls;
	if (sscanf(out, "sigurg %ld calls %ld", &sigurg, &calls) != 2) { fprintf(stderr, "bad output: %s\n", out); return -1; }
	fprintf(stderr, "abi_sigurg: %s: %ld SIGURG to the calling thread in %ld calls\n",
		env[0] ? env[0] : "library default", sigurg, calls);
	return sigurg;
}

int main(int argc, char **argv)
{
	if (argc == 3 && (strcmp(argv[2], "count") == 0 || strcmp(argv[2], "control") == 0)) {
		return count_run(argv[1], strcmp(argv[2], "control") == 0);
	}
	if (argc != 2) { fprintf(stderr, "usage: %s libephpm_kv.so\n", argv[0]); return 2; }
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0) { perror("readlink"); return 2; }
	self[n] = '\0';

	char *const control_env[] = { "GODEBUG=asyncpreemptoff=0", NULL };
	char *const default_env[] = { NULL };
	int failed = 0;
	long control = spawn_count(self, argv[1], control_env);
	if (control <= 0) {
		failed++;
		fprintf(stderr, "FAIL: with async preemption on, the workload drew %ld SIGURGs: it cannot show their absence\n",
			control);
	}
	long sigurg = spawn_count(self, argv[1], default_env);
	if (sigurg != 0) {
		failed++;
		fprintf(stderr, "FAIL: the library sent %ld SIGURGs to the thread calling it (async preemption is on)\n",
			sigurg);
	}
	fprintf(stderr, "abi_sigurg: %s\n", failed ? "FAILED" : "ok");
	return failed != 0;
}
