// SPDX-License-Identifier: MIT
/*
 * slimtrace record: run a program that links slimtrace, with tracing
 * configured through its environment (the library reads SLIMTRACE_* at
 * start-up and writes SLIMTRACE_OUTPUT when the program exits), then
 * read the file back and say what was recorded and what was lost.
 *
 * With -p PID it attaches to a running program instead (record_attach.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fnmatch.h>
#include <time.h>
#include "cli.h"
#include "ctl/parse.h"
#include "elfcheck.h"
#include "live.h"
#include "tdat_write.h"

/* Append a formatted piece to *DST, with SEP before it unless *DST is empty. */
static int append(char **dst, const char *sep, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int append(char **dst, const char *sep, const char *fmt, ...)
{
	char *piece, *buf;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&piece, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	buf = realloc(*dst, (*dst ? strlen(*dst) + strlen(sep) : 0) + n + 1);
	if (!buf) {
		free(piece);
		return -1;
	}
	if (*dst)
		strcat(buf, sep);
	else
		buf[0] = '\0';
	strcat(buf, piece);
	free(piece);
	*dst = buf;
	return 0;
}

/*
 * -f EXPR applies to the events of the -e before it (all events if none):
 * each word becomes a sys:event:EXPR entry of SLIMTRACE_FILTER; a bare
 * word names a system or an event, as in set_event.
 */
static int add_filter(struct record_opts *ro, const char *expr)
{
	const char *s = ro->last_events ? ro->last_events : "*:*";
	char word[256];
	size_t n;
	int ret = 0;

	if (strchr(expr, ';'))
		return cli_bad_usage("record", "-f '%s': a filter cannot contain ';'", expr);
	for (; *s && !ret; s += n) {
		s += strspn(s, ", \t\n");
		n = strcspn(s, ", \t\n");
		if (!n || *s == '!')
			continue;
		if (n >= sizeof(word))
			return cli_bad_usage("record", "event '%.*s' is too long", (int)n, s);
		memcpy(word, s, n);
		word[n] = '\0';
		if (strchr(word, ':'))
			ret = append(&ro->filters, ";", "%s:%s", word, expr);
		else
			ret = append(&ro->filters, ";", "%s:*:%s;*:%s:%s", word, expr, word, expr);
	}
	return ret ? cli_fail("out of memory") : 0;
}

static int parse(struct record_opts *ro, int argc, char **argv)
{
	static const char *const clocks[] = { "mono", "mono_raw", "tsc", NULL };
	int c, i;

	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "file-version", required_argument, NULL, 'V' },
		{ "compression", required_argument, NULL, 'Z' },
		{ "duration", required_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 }
	};

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:he:f:b:C:Oo:qp:a", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_usage("record", stdout);
			return -1;
		case 'e':
			if (append(&ro->events, ",", "%s", optarg))
				return cli_fail("out of memory");
			ro->last_events = optarg;
			break;
		case 'f':
			if ((c = add_filter(ro, optarg)))
				return c;
			break;
		case 'b': {
			/* What buffer_size_kb refuses, in its words, before the program runs. */
			unsigned int pages;
			const char *why;

			if (slim_parse_buffer_kb(optarg, &pages, &why))
				return cli_bad_usage("record", "-b '%s': %s", optarg, why);
			ro->buffer_kb = optarg;
			break;
		}
		case 'C':
			for (i = 0; clocks[i] && strcmp(clocks[i], optarg); i++)
				;
			if (!clocks[i])
				return cli_bad_usage("record", "-C '%s': no such clock (mono, mono_raw, tsc)", optarg);
			ro->clock = optarg;
			break;
		case 'O':
			ro->overwrite = 1;
			break;
		case 'o':
			ro->output = optarg;
			break;
		case 'q':
			ro->quiet = 1;
			break;
		case 'p':
			if (ro->nr_pids == 64)
				return cli_bad_usage("record", "-p: at most 64 processes");
			if (cli_parse_pid("record", optarg, &ro->pids[ro->nr_pids]))
				return EXIT_USAGE;
			ro->pid = ro->pids[0];
			ro->nr_pids++;
			break;
		case 'a':
			ro->all = 1;
			break;
		case 'D': {
			char *end;

			ro->duration = strtod(optarg, &end);
			if (!*optarg || *end || !(ro->duration > 0))
				return cli_bad_usage("record", "--duration '%s': not a number of seconds",
						     optarg);
			break;
		}
		case 'V':
			if (strcmp(optarg, "6") && strcmp(optarg, "7"))
				return cli_bad_usage("record", "--file-version '%s': 6 or 7", optarg);
			ro->version = optarg;
			break;
		case 'Z':
			if (strcmp(optarg, "zstd") && strcmp(optarg, "none"))
				return cli_bad_usage("record", "--compression '%s': zstd or none", optarg);
			ro->zstd = !strcmp(optarg, "zstd");
			break;
		case ':':
			return cli_bad_usage("record", "option '%s' needs an argument", argv[optind - 1]);
		default:
			if (optopt)
				return cli_bad_usage("record", "unknown option '-%c'", optopt);
			return cli_bad_usage("record", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (ro->zstd && ro->version && !strcmp(ro->version, "6"))
		return cli_bad_usage("record", "--compression zstd needs --file-version 7 "
				     "(version 6 has no compression)");
	if (ro->zstd)
		ro->version = "7";
	if (ro->all) {
		if (ro->nr_pids)
			return cli_bad_usage("record", "-a records every process: no -p as well");
		if (optind < argc)
			return cli_bad_usage("record", "-a records the running programs: "
					     "no program to run as well");
		/* Each program writes its file; the merge makes one version 6 file. */
		if (ro->version)
			return cli_bad_usage("record", "-a: --file-version and --compression "
					     "are each program's own (SLIMTRACE_FILE_VERSION)");
		return 0;
	}
	if (ro->pid) {
		if (optind < argc)
			return cli_bad_usage("record", "-p PID attaches to a running program: "
					     "no program to run as well");
		/* The program writes the file, as its own environment says. */
		if (ro->version)
			return cli_bad_usage("record", "-p: --file-version and --compression "
					     "are the program's own (SLIMTRACE_FILE_VERSION)");
		return 0;
	}
	if (ro->duration)
		return cli_bad_usage("record", "--duration goes with -p PID or -a");
	if (optind >= argc)
		return cli_bad_usage("record", "no program to run "
				     "(slimtrace record [OPTIONS] -- PROGRAM [ARGS...])");
	return 0;
}

/* PROGRAM as execvp would find it, in BUF; 0 or -1 with errno. */
static int find_program(const char *prog, char *buf, size_t len)
{
	const char *path = getenv("PATH"), *p;
	size_t n;

	if (strchr(prog, '/')) {
		if (strlen(prog) >= len)
			return errno = ENAMETOOLONG, -1;
		strcpy(buf, prog);
		return access(buf, X_OK);
	}
	for (p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin"; *p; p += n + (p[n] == ':')) {
		n = strcspn(p, ":");
		if ((size_t)snprintf(buf, len, "%.*s%s%s", (int)n, p, n ? "/" : "", prog) >= len)
			continue;
		if (!access(buf, X_OK))
			return 0;
	}
	return errno = ENOENT, -1;
}

/* Shells run what their script or -c says: that cannot be told from here. */
static int is_shell(const char *path)
{
	static const char *const shells[] = { "sh", "bash", "dash", "zsh", "ksh", "mksh",
					      "busybox", NULL };
	const char *base = strrchr(path, '/');
	int i;

	base = base ? base + 1 : path;
	for (i = 0; shells[i]; i++)
		if (!strcmp(base, shells[i]))
			return 1;
	return 0;
}

/*
 * Whether the run can record anything: PATH links slimtrace, or it is a
 * script (not an ELF file) or a shell, or a wrapper that runs a program
 * which does (env VAR=1 ./prog, time, nice -n 5, taskset -c 0, valgrind
 * --tool=none, strace -f...): some later word of ARGV names it.
 */
static int runs_linked(char **argv, const char *path)
{
	char buf[PATH_MAX];
	int i;

	if (elf_links_slimtrace(path) != 0 || is_shell(path))
		return 1;
	for (i = 1; argv[i]; i++) {
		if (argv[i][0] == '-' || strchr(argv[i], '='))
			continue;
		if (!find_program(argv[i], buf, sizeof(buf)) && elf_links_slimtrace(buf) == 1)
			return 1;
	}
	return 0;
}

/* An absolute path for FILE, so that a program that changes directory still writes it. */
static char *absolute(const char *file)
{
	char cwd[PATH_MAX], *buf;

	if (file[0] == '/')
		return strdup(file);
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	buf = malloc(strlen(cwd) + strlen(file) + 2);
	if (buf)
		sprintf(buf, "%s/%s", cwd, file);
	return buf;
}

static int set_env(const char *name, const char *value)
{
	if (value ? setenv(name, value, 1) : unsetenv(name))
		return cli_fail("cannot set %s: %s", name, strerror(errno));
	return 0;
}

static int run(const char *path, char **argv, int *status)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	pid_t pid, w;

	/* A ^C stops the program; we stay to read what it wrote. */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid < 0)
		return cli_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		execv(path, argv);
		fprintf(stderr, "slimtrace: %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	do
		w = waitpid(pid, status, 0);
	while (w < 0 && errno == EINTR);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (w < 0)
		return cli_fail("waitpid: %s", strerror(errno));
	return 0;
}

/*
 * Every -e pattern must have matched an event of the program.  This is
 * told at the end, from the file: it holds the format of every event the
 * program had loaded (a library dlopen'ed while recording included, and
 * one dlclose'd again), so an event that appears late is not an error,
 * and one that never appeared is.
 */
static int check_events(const struct tdat *t, const char *events, const char *prog)
{
	const char *p = events, *end;
	int i, missing = 0;

	for (; p && *p; p = *end ? end + 1 : end) {
		size_t len;

		p += strspn(p, " \t");
		end = p + strcspn(p, ", \t");
		len = (size_t)(end - p);
		if (!len || *p == '!')
			continue;
		for (i = 0; i < t->nr_events; i++)
			if (tdat_event_matches(&t->events[i], p, len))
				break;
		if (i < t->nr_events)
			continue;
		cli_fail("record -e '%.*s': no event of %s matched it (nor of the libraries it "
			 "loaded): nothing was recorded for it", (int)len, p, prog);
		missing = 1;
	}
	return missing ? EXIT_FAIL : 0;
}

/* Read FILE back: events and losses per buffer, as trace-cmd record reports them. */
int record_summarize(const char *file, int quiet, const char *events, const char *prog)
{
	struct tdat t;
	struct tdat_open_flags fl = { .no_plugins = 1 };
	struct tdat_cursor c;
	struct tdat_record r;
	unsigned long long nr = 0, lost = 0, buf_lost;
	int i, ret = 0, unknown = 0;

	if (cli_open(&t, file, &fl))
		return EXIT_FAIL;
	for (i = 0; i < t.nr_cpus && !ret; i++) {
		const struct tdat_cpustat *st = &t.cpus[i].stat;

		if (tdat_cursor_init(&c, &t, i) == 0)
			while ((ret = tdat_cursor_next(&c, &r)) > 0)
				;
		if (ret < 0 || !c.buf) {
			ret = cli_fail("%s: %s", file, t.err);
			tdat_cursor_fini(&c);
			break;
		}
		buf_lost = tdat_cpu_lost(&c, st);
		nr += c.records;
		lost += buf_lost;
		unknown |= c.lost_unknown;
		if (!quiet)
			fprintf(stderr, "CPU%d data recorded at offset=0x%llx\n    %llu bytes in size, "
				"%llu events, %llu%s lost\n", i, (unsigned long long)t.cpus[i].offset,
				(unsigned long long)t.cpus[i].size, c.records, buf_lost,
				c.lost_unknown ? "+" : "");
		tdat_cursor_fini(&c);
	}
	if (!ret && !quiet && t.lost_nobuf)
		fprintf(stderr, "%llu events lost for want of a buffer\n", t.lost_nobuf);
	if (!ret && !quiet)
		fprintf(stderr, "%s: %llu events in %d buffer%s, %llu%s lost\n", file, nr,
			t.nr_cpus, t.nr_cpus == 1 ? "" : "s", lost + t.lost_nobuf,
			unknown ? "+" : "");
	if (!ret)
		ret = check_events(&t, events, prog);
	tdat_close(&t);
	return ret;
}

/*
 * Compression costs 60-110 ns an event: too much while the program
 * records, so the library writes version 7 plain and it happens here.
 * A merge of several processes' files writes version 6: made 7 here too
 * if that was asked.
 */
static int rewrite(const char *file, const char *shown, int zstd)
{
	struct tdat_write_opts w = { .version = 7, .zstd = zstd };
	char tmp[PATH_MAX];
	int ret;

	snprintf(tmp, sizeof(tmp), "%s.v7", file);
	ret = cli_rewrite(file, tmp, &w);
	if (!ret && rename(tmp, file))
		ret = cli_fail("%s: cannot replace it with the rewritten file: %s", shown,
			       strerror(errno));
	if (ret)
		unlink(tmp);
	return ret;
}

/*
 * The folder of the output must exist and take files before the program
 * runs: the library finds out only when it starts recording, and the
 * program's run would be wasted.
 */
static int check_dir(const char *abs, const char *shown)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(abs, '/');
	struct stat st;
	size_t n = slash ? (size_t)(slash - abs) : 0;

	if (n >= sizeof(dir))
		return cli_fail("-o %s: the path is too long", shown);
	memcpy(dir, abs, n);
	dir[n] = '\0';
	if (!n)
		strcpy(dir, "/");
	if (stat(dir, &st))
		return cli_fail("-o %s: folder %s: %s", shown, dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return cli_fail("-o %s: %s is not a folder", shown, dir);
	if (access(dir, W_OK | X_OK))
		return cli_fail("-o %s: cannot write in folder %s: %s", shown, dir, strerror(errno));
	return 0;
}

static int after(const char *prog, const char *file, const char *shown, int status,
		 const struct record_opts *ro)
{
	int quiet = ro->quiet, n, ret, rebuilt;

	if (WIFSIGNALED(status))
		cli_fail("%s was killed by signal %d (%s)", prog, WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else if (!quiet)
		fprintf(stderr, "slimtrace: %s exited with status %d\n", prog, WEXITSTATUS(status));
	n = record_parts_join(file, shown, ro, WIFSIGNALED(status), &rebuilt);
	if (n < 0)
		return -n;
	if (!n) {
		if (WIFSIGNALED(status))
			return cli_fail("%s: not written (a program writes its trace when it exits "
					"normally)", shown);
		if (WEXITSTATUS(status) == 127)
			return EXIT_FAIL;
		return cli_fail("%s exited with status %d without writing %s: is it linked with "
				"slimtrace, and does it exit through exit() or a return from main?",
				prog, WEXITSTATUS(status), shown);
	}
	if ((ro->zstd || (n > 1 && ro->version && !strcmp(ro->version, "7"))) &&
	    (ret = rewrite(file, shown, ro->zstd)))
		return ret;
	ret = record_summarize(shown, quiet, ro->events, n > 1 ? "the processes" : prog);
	ret = record_errors_report(ro, shown, ret);
	if (ret)
		return ret;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	/* Rebuilt, but not as asked: the program's own recording failed. */
	return rebuilt ? EXIT_FAIL : WEXITSTATUS(status);
}

/* The output file as an absolute path, its folder checked, an old one gone; NULL: said. */
static char *output_path(struct record_opts *ro)
{
	char *out;

	if (!ro->output)
		ro->output = DEFAULT_FILE;
	out = absolute(ro->output);
	if (!out) {
		cli_fail("%s: %s", ro->output, strerror(errno));
		return NULL;
	}
	if (check_dir(out, ro->output)) {
		free(out);
		return NULL;
	}
	if ((unlink(out) && errno != ENOENT && cli_fail("%s: cannot replace: %s", ro->output,
							  strerror(errno))) ||
	    (!ro->pid && record_parts_clear(out))) {
		free(out);
		return NULL;
	}
	return out;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts ro = { 0 };
	char path[PATH_MAX], *out = NULL, **prog_argv, missing[1024];
	int ret, status;

	ret = parse(&ro, argc, argv);
	if (ret)
		goto done;
	prog_argv = argv + optind;
	ret = EXIT_FAIL;
	if (ro.pid || ro.all) {
		out = output_path(&ro);
		if (out)
			ret = record_attach(&ro, out, ro.output);
		goto done;
	}
	if (find_program(prog_argv[0], path, sizeof(path))) {
		cli_fail("%s: %s", prog_argv[0], errno == ENOENT ? "command not found" : strerror(errno));
		goto done;
	}
	if (!runs_linked(prog_argv, path)) {
		cli_fail("%s is not linked with slimtrace (no slim_events section, no slim_event_reserve "
			 "symbol, no libslimtrace in what it loads), nor is a program named in its "
			 "arguments: it has no events to record", path);
		goto done;
	}
	if (elf_missing_libraries(path, missing, sizeof(missing))) {
		cli_fail("%s cannot start: the loader does not find %s.  Install it where the "
			 "loader looks (ldconfig), link with -Wl,-rpath,DIR, or set "
			 "LD_LIBRARY_PATH=DIR", path, missing);
		goto done;
	}
	out = output_path(&ro);
	if (!out)
		goto done;
	if (set_env("SLIMTRACE_OUTPUT", out) ||
	    set_env("SLIMTRACE_OUTPUT_PER_PROCESS", "1") ||
	    set_env("SLIMTRACE_EVENTS", ro.events ? ro.events : "*:*") ||
	    set_env("SLIMTRACE_FILTER", ro.filters) ||
	    (ro.buffer_kb && set_env("SLIMTRACE_BUFFER_KB", ro.buffer_kb)) ||
	    (ro.clock && set_env("SLIMTRACE_CLOCK", ro.clock)) ||
	    /* Said either way: the library's default is the kernel's (overwrite). */
	    set_env("SLIMTRACE_OVERWRITE", ro.overwrite ? "1" : "0") ||
	    (ro.version && set_env("SLIMTRACE_FILE_VERSION", ro.version)) ||
	    /* -e is checked from the file; what the library refuses comes back here. */
	    set_env("SLIMTRACE_EVENTS_CHECK", "0") || record_errors_setup())
		goto done;
	if (run(path, prog_argv, &status))
		goto done;
	ret = after(prog_argv[0], out, ro.output, status, &ro);
done:
	free(out);
	free(ro.events);
	free(ro.filters);
	return ret < 0 ? 0 : ret;
}
