// SPDX-License-Identifier: MIT
/*
 * The kernel's ring-buffer page: the commit word, the lost-events
 * trailer, and the header_page / header_event texts that describe them
 * (page.h).  Linked into the library and compiled into the slimtrace
 * command, so that both read and write one encoding.
 */
#include <stdio.h>
#include <string.h>
#include "ring/page.h"

#define STR(x)	STR_1(x)
#define STR_1(x) #x
#define DATA_SIZE_TEXT	4080
_Static_assert(DATA_SIZE_TEXT == SLIM_PAGE_DATA, "header_page says the data size");

const char slim_page_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:" STR(DATA_SIZE_TEXT) ";\tsigned:0;\n";

const char slim_page_header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

int slim_page_info(const struct slim_page_fmt *f, const unsigned char *page,
		   struct slim_page_info *pi)
{
	const unsigned char *w = page + f->commit_offset;
	uint64_t count;

	pi->time_stamp = slim_page_u64(f, page);
	/*
	 * The kernel ORs the flags in as int constants: in a 64-bit commit
	 * word the sign extension sets the upper half too.  Only the low 32
	 * bits mean anything.
	 */
	pi->commit = f->commit_size == 8 ? (uint32_t)slim_page_u64(f, w) : slim_page_u32(f, w);
	pi->len = (uint32_t)(pi->commit & SLIM_PAGE_COMMIT_MASK);
	pi->missed = 0;
	if (pi->commit & ~(SLIM_PAGE_COMMIT_MASK | SLIM_PAGE_MISSED_EVENTS | SLIM_PAGE_MISSED_STORED))
		return SLIM_PAGE_E_FLAGS;
	if (pi->len > f->data_size)
		return SLIM_PAGE_E_COMMIT;
	if (pi->commit & SLIM_PAGE_MISSED_STORED) {
		if (pi->len + f->commit_size > f->data_size)
			return SLIM_PAGE_E_NOROOM;
		w = page + f->data_offset + pi->len;
		count = f->commit_size == 8 ? slim_page_u64(f, w) : slim_page_u32(f, w);
		if ((long long)count < 0)
			return SLIM_PAGE_E_COUNT;
		pi->missed = (long long)count;
	} else if (pi->commit & SLIM_PAGE_MISSED_EVENTS) {
		pi->missed = -1;
	}
	return 0;
}

void slim_page_finish(unsigned char *page, uint32_t n, uint64_t missed)
{
	uint64_t commit = n;

	if (missed) {
		commit |= SLIM_PAGE_MISSED_EVENTS;
		if (slim_page_count_fits(n)) {
			memcpy(page + SLIM_PAGE_HDR + n, &missed, sizeof(missed));
			commit |= SLIM_PAGE_MISSED_STORED;
			n += sizeof(missed);
		}
	}
	memset(page + SLIM_PAGE_HDR + n, 0, SLIM_PAGE_DATA - n);
	memcpy(page + 8, &commit, sizeof(commit));
}

/* "field: local_t commit;\toffset:8;\tsize:8;" -> offset and size. */
static int header_field(const char *text, const char *name, int *offset, int *size)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s;", name);
	p = strstr(text, pat);
	if (!p)
		return -1;
	p = strstr(p, "offset:");
	if (!p || sscanf(p, "offset:%d;", offset) != 1)
		return -1;
	p = strstr(p, "size:");
	if (!p || sscanf(p, "size:%d;", size) != 1)
		return -1;
	return 0;
}

/* "\ttype_len    :    5 bits" -> 5; -1 when NAME is not there. */
static int header_bits(const char *text, const char *name)
{
	const char *p = strstr(text, name);
	int bits;

	if (!p)
		return -1;
	p += strlen(name);
	p += strspn(p, " \t");
	if (*p != ':' || sscanf(p + 1, "%d bits", &bits) != 1)
		return -1;
	return bits;
}

int slim_page_fmt_parse(struct slim_page_fmt *f, const char *header_page,
			const char *header_event, unsigned int page_size,
			int big_endian, struct slim_page_fields *fl)
{
	memset(fl, 0, sizeof(*fl));
	if (header_field(header_page, "timestamp", &fl->ts_off, &fl->ts_size) ||
	    header_field(header_page, "commit", &fl->commit_off, &fl->commit_size) ||
	    header_field(header_page, "data", &fl->data_off, &fl->data_size))
		return SLIM_PAGE_E_FIELDS;
	if (fl->ts_off != 0 || fl->ts_size != 8 ||
	    (fl->commit_size != 4 && fl->commit_size != 8) || fl->commit_off < 8 ||
	    fl->data_off < fl->commit_off + fl->commit_size || fl->data_size <= 0 ||
	    (uint32_t)fl->data_off + (uint32_t)fl->data_size > page_size)
		return SLIM_PAGE_E_FIT;
	if (header_event && (header_bits(header_event, "type_len") != 5 ||
			     header_bits(header_event, "time_delta") != 27))
		return SLIM_PAGE_E_EVENT;
	f->big_endian = big_endian;
	f->swap = big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	f->page_size = page_size;
	f->commit_offset = (unsigned int)fl->commit_off;
	f->commit_size = (unsigned int)fl->commit_size;
	f->data_offset = (unsigned int)fl->data_off;
	f->data_size = (unsigned int)fl->data_size;
	return 0;
}
