/* SPDX-License-Identifier: Apache-2.0 */
#include "options.h"

#include <stdio.h>
#include <string.h>

int ar_parse_flag(const char *text, int *out)
{
	if (text == NULL || text[0] == '\0' || strcmp(text, "1") == 0) {
		*out = 1;
		return 0;
	}
	if (strcmp(text, "0") == 0) {
		*out = 0;
		return 0;
	}
	return -1;
}

int ar_setting_apply(struct ar_setting *setting, enum ar_source source, int value)
{
	if (source < setting->source)
		return 0;
	if (source == setting->source && setting->value != value)
		return -1;
	setting->value = value;
	setting->source = source;
	return 0;
}

int ar_config_apply_env(struct ar_config *config, const char *value, char *err, size_t errlen)
{
	int flag;
	if (value == NULL || value[0] == '\0')
		return 0;
	if (ar_parse_flag(value, &flag) != 0) {
		snprintf(err, errlen, "%s=%s: expected 0 or 1", AR_ENV_VAR, value);
		return -1;
	}
	/* One environment value: it cannot conflict with itself. */
	return ar_setting_apply(&config->enabled, AR_SRC_ENV, flag);
}

void ar_config_init(struct ar_config *config)
{
	memset(config, 0, sizeof(*config));
	config->enabled.value = 0;
	config->enabled.source = AR_SRC_NONE;
	/* The literal fits: checked at compile time by the array size. */
	snprintf(config->supervisor, sizeof(config->supervisor), "%s", AR_SUPERVISOR_DEFAULT);
}

int ar_config_parse_args(struct ar_config *config, int ac, char **av, char *err, size_t errlen)
{
	for (int i = 0; i < ac; i++) {
		const char *arg = av[i];
		if (strncmp(arg, "default=", 8) == 0) {
			int value;
			if (ar_parse_flag(arg + 8, &value) != 0 || arg[8] == '\0') {
				snprintf(err, errlen, "plugstack argument %s: expected default=0 or default=1", arg);
				return -1;
			}
			if (ar_setting_apply(&config->enabled, AR_SRC_PLUGSTACK, value) != 0) {
				snprintf(err, errlen, "plugstack argument %s conflicts with an earlier default=", arg);
				return -1;
			}
		} else if (strncmp(arg, "supervisor=", 11) == 0) {
			const char *path = arg + 11;
			if (path[0] != '/') {
				snprintf(err, errlen, "plugstack argument %s: the supervisor must be an absolute path", arg);
				return -1;
			}
			int n = snprintf(config->supervisor, sizeof(config->supervisor), "%s", path);
			if (n < 0 || (size_t)n >= sizeof(config->supervisor)) {
				snprintf(err, errlen, "plugstack argument supervisor=: path too long");
				return -1;
			}
		} else {
			snprintf(err, errlen, "unknown plugstack argument \"%s\" (known: default=0|1, supervisor=PATH)", arg);
			return -1;
		}
	}
	return 0;
}
