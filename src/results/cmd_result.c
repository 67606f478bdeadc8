/* cmd_result.c - the cmd suite's figures by name and value, which env
 * entries are part of a case's key, and the layout's audit sizes and
 * address space randomization (include/primbench/cmd_result.h,
 * cmd_layout_result.h). */
#define _GNU_SOURCE
#include "primbench/cmd_result.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>

#include "primbench/cmd_layout_result.h"

static const char *const figure_names[PB_CMD_NFIGURES] = {"real",   "user",   "sys",  "maxrss",
                                                          "minflt", "majflt", "vcsw", "ivcsw"};

const char *pb_cmd_figure_name(enum pb_cmd_figure f)
{
	if ((int)f == PB_CMD_INSTRUCTIONS)
		return "instructions";
	if ((int)f == PB_CMD_CYCLES)
		return "cycles";
	return (unsigned)f < PB_CMD_NFIGURES ? figure_names[f] : "user+sys";
}

bool pb_cmd_metric_is_time(int metric)
{
	return metric <= PB_CMD_SYS || metric == PB_CMD_USER_SYS;
}

bool pb_cmd_metric_is_counter(int metric)
{
	return metric == PB_CMD_INSTRUCTIONS || metric == PB_CMD_CYCLES;
}

double pb_cmd_figure_value(const struct pb_cmd_run *r, enum pb_cmd_figure f)
{
	switch (f) {
	case PB_CMD_REAL:
		return r->wall_ns;
	case PB_CMD_USER:
		return r->user_ns;
	case PB_CMD_SYS:
		return r->sys_ns;
	case PB_CMD_MAXRSS:
		return (double)r->max_rss_kib;
	case PB_CMD_MINFLT:
		return (double)r->minflt;
	case PB_CMD_MAJFLT:
		return (double)r->majflt;
	case PB_CMD_VCSW:
		return (double)r->nvcsw;
	case PB_CMD_IVCSW:
		return (double)r->nivcsw;
	default:
		return NAN;
	}
}

double pb_cmd_metric_value(const struct pb_cmd_run *r, int metric)
{
	if (metric == PB_CMD_USER_SYS)
		return r->user_ns + r->sys_ns;
	if (pb_cmd_metric_is_counter(metric))
		return !r->counters                    ? NAN
		       : metric == PB_CMD_INSTRUCTIONS ? r->instructions
		                                       : r->cycles;
	return pb_cmd_figure_value(r, (enum pb_cmd_figure)metric);
}

bool pb_cmd_env_in_key(const char *entry)
{
	return strncmp(entry, "PRIMBENCH_ACCOUNT_DIR=", 22) != 0 &&
	       strncmp(entry, "PRIMBENCH_PRELOAD_LOG=", 22) != 0 &&
	       strncmp(entry, "PRIMBENCH_PAD=", 14) != 0 && strchr(entry, '=') != NULL;
}

long pb_layout_audit_size(unsigned k)
{
	return (long)k * 528;
}

int pb_layout_aslr(void)
{
	/* setarch -R: this process and its children run without it */
	int pers = personality(0xffffffff);
	if (pers != -1 && (pers & ADDR_NO_RANDOMIZE))
		return 0;
	FILE *f = fopen("/proc/sys/kernel/randomize_va_space", "r");
	int v = -1;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}
