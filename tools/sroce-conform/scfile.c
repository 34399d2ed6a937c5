/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scfile.c — the scenario file reader: one line, one statement.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scfile.h"
#include "wire/hdr.h"
#include "wire/parse.h"
#include "wire/opcode.h"

#define SC_LINE_MAX 512

struct sc_reader {
	struct sc_list *list;
	const char *path;
	unsigned int line;
	struct sc_scenario *cur;  /* being read, NULL outside */
	bool bad;                 /* cur has an error: skip to its end */
};

static void sc_error(struct sc_reader *r, const char *fmt, ...)
{
	char msg[SC_LINE_MAX + 128];
	int n;
	va_list ap;
	char **e;

	n = snprintf(msg, sizeof(msg), "%s:%u: ", r->path, r->line);
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	if (r->cur != NULL)
		r->bad = true;
	e = realloc(r->list->errors,
		    (r->list->nerrors + 1) * sizeof(*r->list->errors));
	if (e == NULL)
		return;
	r->list->errors = e;
	e[r->list->nerrors] = strdup(msg);
	if (e[r->list->nerrors] != NULL)
		r->list->nerrors++;
}

static bool sc_num(const char *s, uint64_t *v)
{
	char *end;

	if (*s == '\0' || *s == '-')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno == 0 && *end == '\0';
}

static uint8_t sc_tt(const struct sc_scenario *sc)
{
	switch (sc->qp_type) {
	case SC_QP_UC:
		return SR_TT_UC;
	case SC_QP_UD:
		return SR_TT_UD;
	default:
		return SR_TT_RC;
	}
}

/* OPCODE: a name of the opcode table in the QP's transport, or a number. */
static bool sc_opcode(const struct sc_scenario *sc, const char *s,
		      uint8_t *op)
{
	uint64_t v;

	if (sc_num(s, &v)) {
		if (v > 0xff)
			return false;
		*op = (uint8_t)v;
		return true;
	}
	for (unsigned int c = 0; c < 32; c++) {
		const struct sr_opcode_info *i =
			sr_opcode_info((uint8_t)(sc_tt(sc) | c));

		if (i != NULL && strcmp(i->name, s) == 0) {
			*op = (uint8_t)(sc_tt(sc) | c);
			return true;
		}
	}
	return false;
}

static const struct {
	const char *name;
	uint8_t code;
} nak_names[] = {
	{ .name = "seq", .code = SR_NAK_PSN_SEQ_ERR }, { .name = "inv", .code = SR_NAK_INVALID_REQ },
	{ .name = "acc", .code = SR_NAK_REMOTE_ACCESS }, { .name = "op", .code = SR_NAK_REMOTE_OP },
};

static bool sc_aeth(const char *s, uint32_t *v)
{
	uint64_t n;

	if (strcmp(s, "ack") == 0) {
		*v = SC_AETH_ACK_ANY;
		return true;
	}
	if (strcmp(s, "rnr") == 0) {
		*v = SC_AETH_ANY_RNR;
		return true;
	}
	if (strncmp(s, "rnr:", 4) == 0 && sc_num(s + 4, &n) && n < 32) {
		*v = SR_AETH_RNR_NAK | (uint32_t)n;
		return true;
	}
	if (strncmp(s, "nak:", 4) == 0) {
		for (size_t i = 0; i < sizeof(nak_names) / sizeof(*nak_names);
		     i++)
			if (strcmp(s + 4, nak_names[i].name) == 0) {
				*v = SR_AETH_NAK | nak_names[i].code;
				return true;
			}
		if (sc_num(s + 4, &n) && n < 32) {
			*v = SR_AETH_NAK | (uint32_t)n;
			return true;
		}
	}
	if (sc_num(s, &n) && n < 256) {
		*v = (uint32_t)n;
		return true;
	}
	return false;
}

/* Keys of a step: name, field, how the value reads. */
enum sc_vkind { SC_V_NUM, SC_V_FLAG, SC_V_KEY, SC_V_AETH, SC_V_STATUS,
		SC_V_WCOP };

static const struct {
	const char *key;
	enum sc_field f;
	enum sc_vkind v;
} sc_keys[] = {
	{ .key = "psn", .f = SC_F_PSN, .v = SC_V_NUM }, { .key = "va", .f = SC_F_VA, .v = SC_V_NUM },
	{ .key = "rkey", .f = SC_F_RKEY, .v = SC_V_KEY }, { .key = "len", .f = SC_F_LEN, .v = SC_V_NUM },
	{ .key = "payload", .f = SC_F_PAYLOAD, .v = SC_V_NUM },
	{ .key = "pattern", .f = SC_F_PATTERN, .v = SC_V_NUM },
	{ .key = "ackreq", .f = SC_F_ACKREQ, .v = SC_V_FLAG }, { .key = "se", .f = SC_F_SE, .v = SC_V_FLAG },
	{ .key = "imm", .f = SC_F_IMM, .v = SC_V_NUM }, { .key = "swap", .f = SC_F_SWAP, .v = SC_V_NUM },
	{ .key = "add", .f = SC_F_SWAP, .v = SC_V_NUM }, { .key = "cmp", .f = SC_F_CMP, .v = SC_V_NUM },
	{ .key = "qkey", .f = SC_F_QKEY, .v = SC_V_NUM }, { .key = "dqpn", .f = SC_F_DQPN, .v = SC_V_KEY },
	{ .key = "aeth", .f = SC_F_AETH, .v = SC_V_AETH }, { .key = "msn", .f = SC_F_MSN, .v = SC_V_NUM },
	{ .key = "orig", .f = SC_F_ORIG, .v = SC_V_NUM }, { .key = "u64", .f = SC_F_ORIG, .v = SC_V_NUM },
	{ .key = "ms", .f = SC_F_MS, .v = SC_V_NUM }, { .key = "status", .f = SC_F_STATUS, .v = SC_V_STATUS },
	{ .key = "op", .f = SC_F_WC_OP, .v = SC_V_WCOP }, { .key = "off", .f = SC_F_OFF, .v = SC_V_NUM },
	{ .key = "badicrc", .f = SC_F_BADICRC, .v = SC_V_FLAG },
	{ .key = "tver", .f = SC_F_TVER, .v = SC_V_NUM }, { .key = "pkey", .f = SC_F_PKEY, .v = SC_V_NUM },
	{ .key = "ieth", .f = SC_F_IETH, .v = SC_V_KEY }, { .key = "count", .f = SC_F_COUNT, .v = SC_V_NUM },
};

static bool sc_set(struct sc_step *st, enum sc_field f, uint64_t v)
{
	switch (f) {
	case SC_F_PSN: st->psn = (int64_t)v; break;
	case SC_F_VA: st->va = v; break;
	case SC_F_RKEY: case SC_F_IETH: st->rkey = v; break;
	case SC_F_LEN: st->len = (uint32_t)v; return v <= UINT32_MAX;
	case SC_F_PAYLOAD: st->payload = (uint32_t)v; return v <= SR_MAX_PAYLOAD;
	case SC_F_PATTERN: st->pattern = (uint32_t)v; break;
	case SC_F_IMM: st->imm = (uint32_t)v; return v <= UINT32_MAX;
	case SC_F_SWAP: st->swap = v; break;
	case SC_F_CMP: st->cmp = v; break;
	case SC_F_QKEY: st->qkey = (uint32_t)v; return v <= UINT32_MAX;
	case SC_F_DQPN: st->dqpn = v; break;
	case SC_F_AETH: st->aeth = (uint32_t)v; break;
	case SC_F_MSN: st->msn = (uint32_t)v; return v < (1u << 24);
	case SC_F_ORIG: st->orig = v; break;
	case SC_F_MS: st->ms = (uint32_t)v; return v <= 60000;
	case SC_F_STATUS: st->status = (int)v; break;
	case SC_F_WC_OP: st->wc_op = (int)v; break;
	case SC_F_OFF: st->off = (uint32_t)v; return v <= UINT32_MAX;
	case SC_F_TVER: st->tver = (uint32_t)v; return v < 16;
	case SC_F_PKEY: st->pkey = (uint32_t)v; return v <= 0xffff;
	case SC_F_COUNT: st->count = (uint32_t)v; return v >= 1 && v <= 64;
	default: break;
	}
	return true;
}

static bool sc_kv(struct sc_reader *r, struct sc_step *st, char *tok)
{
	char *eq = strchr(tok, '=');
	const char *val = eq != NULL ? eq + 1 : NULL;
	uint64_t v = 1;
	uint32_t a;
	int n;

	if (eq != NULL)
		*eq = '\0';
	for (size_t i = 0; i < sizeof(sc_keys) / sizeof(*sc_keys); i++) {
		if (strcmp(sc_keys[i].key, tok) != 0)
			continue;
		if ((sc_keys[i].v == SC_V_FLAG) != (val == NULL)) {
			sc_error(r, "%s: %s", tok, val == NULL ?
				 "needs a value" : "takes no value");
			return false;
		}
		switch (sc_keys[i].v) {
		case SC_V_FLAG:
			break;
		case SC_V_NUM:
			if (!sc_num(val, &v)) {
				sc_error(r, "%s=%s: not a number", tok, val);
				return false;
			}
			break;
		case SC_V_KEY:
			if (strcmp(val, "good") == 0)
				v = SC_GOOD;
			else if (strcmp(val, "bad") == 0)
				v = SC_BAD_RKEY;
			else if (strcmp(val, "mw") == 0)
				v = SC_MW_RKEY;
			else if (!sc_num(val, &v) || v > UINT32_MAX) {
				sc_error(r, "%s=%s: good, bad, mw or a number",
					 tok, val);
				return false;
			}
			break;
		case SC_V_AETH:
			if (!sc_aeth(val, &a)) {
				sc_error(r, "aeth=%s: ack, nak:seq|inv|acc|op|N, rnr or rnr:T",
					 val);
				return false;
			}
			v = a;
			break;
		case SC_V_STATUS:
			n = sc_wc_status_parse(val);
			if (n < 0) {
				sc_error(r, "status=%s: not a completion status",
					 val);
				return false;
			}
			v = (uint64_t)n;
			break;
		case SC_V_WCOP:
			n = sc_wc_opcode_parse(val);
			if (n < 0) {
				sc_error(r, "op=%s: not a completion opcode",
					 val);
				return false;
			}
			v = (uint64_t)n;
			break;
		}
		if (!sc_set(st, sc_keys[i].f, v)) {
			sc_error(r, "%s=%s: out of range", tok, val);
			return false;
		}
		st->has |= 1u << sc_keys[i].f;
		return true;
	}
	sc_error(r, "unknown key '%s'", tok);
	return false;
}

static const struct {
	const char *word;
	enum sc_step_kind kind;
} sc_words[] = {
	{ .word = "send", .kind = SC_SEND }, { .word = "expect", .kind = SC_EXPECT },
	{ .word = "expect-none", .kind = SC_EXPECT_NONE }, { .word = "recv", .kind = SC_RECV },
	{ .word = "post", .kind = SC_POST }, { .word = "cqe", .kind = SC_CQE }, { .word = "cqe-none", .kind = SC_CQE_NONE },
	{ .word = "mem", .kind = SC_MEM }, { .word = "fill", .kind = SC_FILL }, { .word = "qpstate", .kind = SC_QPSTATE },
	{ .word = "wait", .kind = SC_WAIT }, { .word = "bind", .kind = SC_BIND },
};

/* What each step needs (fields that must be given). */
static uint32_t sc_required(enum sc_step_kind k)
{
	switch (k) {
	case SC_MEM:
	case SC_FILL:
		return 1u << SC_F_OFF;
	case SC_RECV:
	case SC_POST:
		return 1u << SC_F_LEN;
	case SC_BIND:
		return 1u << SC_F_LEN | 1u << SC_F_OFF;
	case SC_WAIT:
		return 1u << SC_F_MS;
	default:
		return 0;
	}
}

static void sc_step_line(struct sc_reader *r, enum sc_step_kind kind,
			 char *rest)
{
	struct sc_scenario *sc = r->cur;
	struct sc_step *st;
	char *tok, *save = NULL;
	int n;

	if (sc->nsteps == SC_MAX_STEPS) {
		sc_error(r, "more than %d steps", SC_MAX_STEPS);
		return;
	}
	st = &sc->step[sc->nsteps];
	memset(st, 0, sizeof(*st));
	st->kind = kind;
	st->line = (uint16_t)r->line;
	tok = strtok_r(rest, " \t", &save);
	if (kind == SC_SEND || kind == SC_EXPECT) {
		if (tok == NULL || !sc_opcode(sc, tok, &st->opcode)) {
			sc_error(r, "%s: '%s' is not an opcode of this QP type",
				 sc_step_kind_name(kind), tok ? tok : "");
			return;
		}
		tok = strtok_r(NULL, " \t", &save);
	} else if (kind == SC_POST) {
		n = tok != NULL ? sc_wr_op_parse(tok) : -1;
		if (n < 0) {
			sc_error(r, "post: '%s' is not a work request",
				 tok ? tok : "");
			return;
		}
		st->opcode = (uint8_t)n;
		tok = strtok_r(NULL, " \t", &save);
	} else if (kind == SC_QPSTATE) {
		if (tok == NULL || strlen(tok) >= sizeof(st->state)) {
			sc_error(r, "qpstate: a state name (RTS, ERR, ...)");
			return;
		}
		strcpy(st->state, tok);
		tok = strtok_r(NULL, " \t", &save);
	}
	for (; tok != NULL; tok = strtok_r(NULL, " \t", &save))
		if (!sc_kv(r, st, tok))
			return;
	if ((st->has & sc_required(kind)) != sc_required(kind)) {
		sc_error(r, "%s: missing %s", sc_step_kind_name(kind),
			 kind == SC_WAIT ? "ms=" :
			 (kind == SC_MEM || kind == SC_FILL) ? "off=" :
			 kind == SC_BIND ? "off= and len=" : "len=");
		return;
	}
	if ((kind == SC_MEM || kind == SC_FILL) &&
	    !(st->has & (1u << SC_F_ORIG)) &&
	    !(st->has & (1u << SC_F_LEN))) {
		sc_error(r, "%s: len= and pattern=, or u64=",
			 sc_step_kind_name(kind));
		return;
	}
	sc->nsteps++;
}

/* "qp rc mr=4096 access=rwa tpsn=N dpsn=N timeout=N ..." */
static void sc_qp_line(struct sc_reader *r, char *rest)
{
	struct sc_scenario *sc = r->cur;
	char *tok, *save = NULL;
	uint64_t v;

	tok = strtok_r(rest, " \t", &save);
	if (tok == NULL)
		goto bad;
	if (strcmp(tok, "rc") == 0)
		sc->qp_type = SC_QP_RC;
	else if (strcmp(tok, "uc") == 0)
		sc->qp_type = SC_QP_UC;
	else if (strcmp(tok, "ud") == 0)
		sc->qp_type = SC_QP_UD;
	else
		goto bad;
	while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
		char *eq = strchr(tok, '=');

		if (eq == NULL)
			goto bad_key;
		*eq = '\0';
		if (strcmp(tok, "access") == 0) {
			if (strlen(eq + 1) >= sizeof(sc->access) ||
			    strspn(eq + 1, "rwams") != strlen(eq + 1))
				goto bad_key;
			strcpy(sc->access, eq + 1);
			continue;
		}
		if (!sc_num(eq + 1, &v))
			goto bad_key;
		if (strcmp(tok, "mr") == 0 && v >= 64 && v <= (1u << 24))
			sc->mr_len = (uint32_t)v;
		else if (strcmp(tok, "tpsn") == 0 && v < (1u << 24))
			sc->tpsn = (uint32_t)v;
		else if (strcmp(tok, "dpsn") == 0 && v < (1u << 24))
			sc->dpsn = (uint32_t)v;
		else if (strcmp(tok, "timeout") == 0 && v < 32)
			sc->timeout = (uint8_t)v;
		else if (strcmp(tok, "retry") == 0 && v < 8)
			sc->retry = (uint8_t)v;
		else if (strcmp(tok, "rnr_retry") == 0 && v < 8)
			sc->rnr_retry = (uint8_t)v;
		else if (strcmp(tok, "min_rnr") == 0 && v < 32)
			sc->min_rnr = (uint8_t)v;
		else if (strcmp(tok, "rd_atomic") == 0 && v >= 1 && v <= 16)
			sc->max_rd_atomic = (uint8_t)v;
		else if (strcmp(tok, "qkey") == 0 && v <= UINT32_MAX)
			sc->qkey = (uint32_t)v;
		else
			goto bad_key;
	}
	return;
bad_key:
	sc_error(r, "qp: bad setting '%s'", tok);
	return;
bad:
	sc_error(r, "qp: rc, uc or ud first");
}

static void sc_begin(struct sc_reader *r, const char *name)
{
	struct sc_list *l = r->list;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct sc_scenario *p = realloc(l->sc, cap * sizeof(*p));

		if (p == NULL) {
			sc_error(r, "out of memory");
			return;
		}
		l->sc = p;
		l->cap = cap;
	}
	r->cur = &l->sc[l->n];
	r->bad = false;
	memset(r->cur, 0, sizeof(*r->cur));
	*r->cur = (struct sc_scenario){
		.file = r->path, .line = (uint16_t)r->line,
		.qp_type = SC_QP_RC, .mr_len = 4096, .access = "rwa",
		.tpsn = 1000, .dpsn = 5000, .timeout = 14, .retry = 7,
		.rnr_retry = 7, .min_rnr = 1, .max_rd_atomic = 4,
		.qkey = 0x11111111, .mandatory = true,
	};
	if (name == NULL || strlen(name) >= SC_NAME_LEN) {
		sc_error(r, "scenario: a name of at most %d characters",
			 SC_NAME_LEN - 1);
		return;
	}
	strcpy(r->cur->name, name);
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->sc[i].name, name) == 0)
			sc_error(r, "scenario %s: the name is taken (%s:%u)",
				 name, l->sc[i].file, l->sc[i].line);
}

static void sc_text(struct sc_reader *r, char *dst, size_t cap,
		    const char *word, const char *rest)
{
	if (rest == NULL || *rest == '\0' || strlen(rest) >= cap) {
		sc_error(r, "%s: a text of 1..%zu characters", word, cap - 1);
		return;
	}
	strcpy(dst, rest);
}

static void sc_end(struct sc_reader *r)
{
	struct sc_scenario *sc = r->cur;

	if (!r->bad && sc->nsteps == 0)
		sc_error(r, "scenario %s has no steps", sc->name);
	if (!r->bad && (sc->ref[0] == '\0' || sc->area[0] == '\0'))
		sc_error(r, "scenario %s: area and ref are required", sc->name);
	if (!r->bad)
		r->list->n++;
	r->cur = NULL;
}

static void sc_line(struct sc_reader *r, char *s)
{
	char *word, *rest;
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' ||
			 s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	if (*s == '\0' || *s == '#')
		return;
	word = s;
	rest = s + strcspn(s, " \t");
	if (*rest != '\0') {
		*rest++ = '\0';
		while (*rest == ' ' || *rest == '\t')
			rest++;
	}
	if (strcmp(word, "scenario") == 0) {
		if (r->cur != NULL) {
			sc_error(r, "scenario %s has no end", r->cur->name);
			r->cur = NULL;
		}
		sc_begin(r, *rest ? rest : NULL);
		return;
	}
	if (r->cur == NULL) {
		sc_error(r, "'%s' outside a scenario", word);
		return;
	}
	if (strcmp(word, "end") == 0) {
		sc_end(r);
		return;
	}
	if (r->bad)
		return;
	if (strcmp(word, "area") == 0)
		sc_text(r, r->cur->area, sizeof(r->cur->area), word, rest);
	else if (strcmp(word, "ref") == 0)
		sc_text(r, r->cur->ref, sizeof(r->cur->ref), word, rest);
	else if (strcmp(word, "title") == 0)
		sc_text(r, r->cur->title, sizeof(r->cur->title), word, rest);
	else if (strcmp(word, "conforming") == 0)
		sc_text(r, r->cur->expect, sizeof(r->cur->expect), word, rest);
	else if (strcmp(word, "level") == 0) {
		if (strcmp(rest, "mandatory") == 0)
			r->cur->mandatory = true;
		else if (strcmp(rest, "optional") == 0)
			r->cur->mandatory = false;
		else
			sc_error(r, "level: mandatory or optional");
	} else if (strcmp(word, "qp") == 0) {
		sc_qp_line(r, rest);
	} else {
		for (size_t i = 0; i < sizeof(sc_words) / sizeof(*sc_words);
		     i++)
			if (strcmp(word, sc_words[i].word) == 0) {
				sc_step_line(r, sc_words[i].kind, rest);
				return;
			}
		sc_error(r, "unknown statement '%s'", word);
	}
}

int sc_file_read_stream(struct sc_list *list, FILE *f, const char *path)
{
	struct sc_reader r = { .list = list, .path = path };
	char buf[SC_LINE_MAX];
	size_t before = list->n;

	while (fgets(buf, sizeof(buf), f) != NULL) {
		r.line++;
		if (strchr(buf, '\n') == NULL && !feof(f)) {
			int c;

			sc_error(&r, "line longer than %d characters",
				 SC_LINE_MAX - 2);
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		sc_line(&r, buf);
	}
	if (r.cur != NULL)
		sc_error(&r, "scenario %s has no end", r.cur->name);
	return (int)(list->n - before);
}

int sc_file_read(struct sc_list *list, const char *path)
{
	struct sc_reader r = { .list = list, .path = path };
	char *keep;
	FILE *f;
	int n;

	f = fopen(path, "r");
	if (f == NULL) {
		n = -errno;
		sc_error(&r, "cannot open: %s", strerror(-n));
		return n;
	}
	keep = strdup(path);        /* scenarios point to it */
	if (keep != NULL) {
		char **p = realloc(list->files,
				   (list->nfiles + 1) * sizeof(*p));

		if (p == NULL) {
			free(keep);
			keep = NULL;
		} else {
			list->files = p;
			p[list->nfiles++] = keep;
		}
	}
	n = sc_file_read_stream(list, f, keep ? keep : path);
	fclose(f);
	return n;
}

static int sc_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sc_dir_read(struct sc_list *list, const char *dir)
{
	struct sc_reader r = { .list = list, .path = dir };
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	int files = 0;
	DIR *d;

	d = opendir(dir);
	if (d == NULL) {
		int err = -errno;

		sc_error(&r, "cannot open the folder: %s", strerror(-err));
		return err;
	}
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		char **p;

		if (len < 4 || strcmp(e->d_name + len - 3, ".sc") != 0)
			continue;
		p = realloc(names, (n + 1) * sizeof(*names));
		if (p == NULL)
			break;
		names = p;
		names[n] = malloc(strlen(dir) + len + 2);
		if (names[n] == NULL)
			break;
		sprintf(names[n], "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), sc_cmp);
	for (size_t i = 0; i < n; i++) {
		if (sc_file_read(list, names[i]) >= 0)
			files++;
		free(names[i]);
	}
	free(names);
	return files;
}

void sc_list_free(struct sc_list *list)
{
	for (size_t i = 0; i < list->nerrors; i++)
		free(list->errors[i]);
	free(list->errors);
	for (size_t i = 0; i < list->nfiles; i++)
		free(list->files[i]);
	free(list->files);
	free(list->sc);
	memset(list, 0, sizeof(*list));
}
