/*
 * Plugin parameters: parsing "value" strings against a declared
 * eslapi_CADIParameterInfo_t, range checks, and a complete
 * MTI::ParameterInterface over a table of declarations and values that a
 * plugin instance embeds (struct tw_mti_params).
 *
 * Self-contained on purpose: plugins link this file (through the static
 * tw_model library) without pulling in the trace model.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "tracewire/error.h"
#include "tracewire/model/mti_host.h"

static void msgf(char *err, size_t errcap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void msgf(char *err, size_t errcap, const char *fmt, ...)
{
  va_list ap;
  if (!err || !errcap)
    return;
  va_start(ap, fmt);
  vsnprintf(err, errcap, fmt, ap);
  va_end(ap);
}

static const char *type_name(eslapi_CADIParamType_t t)
{
  switch (t) {
  case CADI_PARAM_BOOL: return "bool";
  case CADI_PARAM_INT: return "int";
  case CADI_PARAM_STRING: return "string";
  default: return "invalid";
  }
}

int tw_mti_param_check(const eslapi_CADIParameterInfo_t *info,
                       const eslapi_CADIParameterValue_t *v, char *err, size_t errcap)
{
  if (v->dataType != info->dataType) {
    msgf(err, errcap, "parameter '%s': expected a %s value, got a %s", info->name,
         type_name(info->dataType), type_name(v->dataType));
    return TW_EINVAL;
  }
  switch (info->dataType) {
  case CADI_PARAM_INT:
    if (info->minValue <= info->maxValue &&
        (v->intValue < info->minValue || v->intValue > info->maxValue)) {
      msgf(err, errcap, "parameter '%s': %lld is out of range [%lld, %lld]", info->name,
           (long long)v->intValue, (long long)info->minValue, (long long)info->maxValue);
      return TW_ERANGE;
    }
    return 0;
  case CADI_PARAM_BOOL:
    if (v->boolValue > 1) {
      msgf(err, errcap, "parameter '%s': bool value %u is not 0 or 1", info->name,
           (unsigned)v->boolValue);
      return TW_ERANGE;
    }
    return 0;
  case CADI_PARAM_STRING:
    if (!memchr(v->stringValue, 0, sizeof v->stringValue)) {
      msgf(err, errcap, "parameter '%s': string longer than %zu bytes", info->name,
           sizeof v->stringValue - 1);
      return TW_ERANGE;
    }
    return 0;
  default:
    msgf(err, errcap, "parameter '%s': invalid declared type", info->name);
    return TW_EINVAL;
  }
}

static int parse_bool(const char *s, uint32_t *out)
{
  static const char *const t[] = {"1", "true", "yes", "on"}, *const f[] = {"0", "false", "no", "off"};
  for (size_t i = 0; i < 4; i++) {
    if (strcasecmp(s, t[i]) == 0) {
      *out = 1;
      return 0;
    }
    if (strcasecmp(s, f[i]) == 0) {
      *out = 0;
      return 0;
    }
  }
  return -1;
}

int tw_mti_param_parse(const eslapi_CADIParameterInfo_t *info, const char *value,
                       eslapi_CADIParameterValue_t *out, char *err, size_t errcap)
{
  char *end;
  memset(out, 0, sizeof *out);
  out->parameterID = info->id;
  out->dataType = info->dataType;
  switch (info->dataType) {
  case CADI_PARAM_INT:
    errno = 0;
    out->intValue = strtoll(value, &end, 0);
    if (!*value || *end) {
      msgf(err, errcap, "parameter '%s': '%s' is not an integer", info->name, value);
      return TW_EINVAL;
    }
    if (errno == ERANGE) {
      msgf(err, errcap, "parameter '%s': '%s' does not fit in 64 bits", info->name, value);
      return TW_ERANGE;
    }
    break;
  case CADI_PARAM_BOOL:
    if (parse_bool(value, &out->boolValue) < 0) {
      msgf(err, errcap, "parameter '%s': '%s' is not a bool (1/0/true/false)", info->name,
           value);
      return TW_EINVAL;
    }
    break;
  case CADI_PARAM_STRING:
    if (strlen(value) >= sizeof out->stringValue) {
      msgf(err, errcap, "parameter '%s': string longer than %zu bytes", info->name,
           sizeof out->stringValue - 1);
      return TW_ERANGE;
    }
    strcpy(out->stringValue, value);
    break;
  default:
    break;
  }
  return tw_mti_param_check(info, out, err, errcap);
}

/* ---- the embedded ParameterInterface --------------------------------------------- */

static struct tw_mti_params *P(MTI_ParameterInterface *self)
{
  return (struct tw_mti_params *)self;
}

static int index_of_id(const struct tw_mti_params *p, uint32_t id)
{
  for (uint32_t i = 0; i < p->n; i++)
    if (p->infos[i].id == id)
      return (int)i;
  return -1;
}

static eslapi_CAInterface *params_obtain(eslapi_CAInterface *self, eslapi_if_name_t n,
                                         eslapi_if_rev_t min, eslapi_if_rev_t *rev)
{
  struct tw_mti_params *p = (struct tw_mti_params *)self;
  if (n && strcmp(n, MTI_ParameterInterface_IFNAME) == 0) {
    if (min > MTI_ParameterInterface_IFREVISION)
      return NULL;
    if (rev)
      *rev = MTI_ParameterInterface_IFREVISION;
    return self;
  }
  return p->owner ? p->owner->vtbl->ObtainInterface(p->owner, n, min, rev) : NULL;
}

static eslapi_CADIReturn_t params_infos(MTI_ParameterInterface *self, uint32_t start,
                                        uint32_t desired, uint32_t *actual,
                                        eslapi_CADIParameterInfo_t *out)
{
  struct tw_mti_params *p = P(self);
  uint32_t k = 0;
  if (actual)
    *actual = 0;
  if (start > p->n || (desired && !out))
    return CADI_STATUS_IllegalArgument;
  for (; k < desired && start + k < p->n; k++)
    out[k] = p->infos[start + k];
  if (actual)
    *actual = k;
  return CADI_STATUS_OK;
}

static eslapi_CADIReturn_t params_info(MTI_ParameterInterface *self, const char *name,
                                       eslapi_CADIParameterInfo_t *out)
{
  struct tw_mti_params *p = P(self);
  for (uint32_t i = 0; name && out && i < p->n; i++) {
    if (strcmp(p->infos[i].name, name) == 0) {
      *out = p->infos[i];
      return CADI_STATUS_OK;
    }
  }
  return CADI_STATUS_IllegalArgument;
}

static eslapi_CADIReturn_t params_get(MTI_ParameterInterface *self, uint32_t count,
                                      uint32_t *actual, eslapi_CADIParameterValue_t *out)
{
  struct tw_mti_params *p = P(self);
  uint32_t k;
  for (k = 0; k < count; k++) {
    int i = index_of_id(p, out[k].parameterID);
    if (i < 0)
      break;
    out[k] = p->values[i];
  }
  if (actual)
    *actual = k;
  return k == count ? CADI_STATUS_OK : CADI_STATUS_IllegalArgument;
}

static eslapi_CADIReturn_t refuse(eslapi_CADIFactoryErrorMessage_t *error, uint32_t id,
                                  eslapi_CADIReturn_t code)
{
  if (error) {
    error->errorCode = code;
    error->erroneousParameterId = id;
  }
  return code;
}

/* All or nothing: every value is checked before any is applied. */
static eslapi_CADIReturn_t params_set(MTI_ParameterInterface *self, uint32_t count,
                                      eslapi_CADIParameterValue_t *vals,
                                      eslapi_CADIFactoryErrorMessage_t *error)
{
  struct tw_mti_params *p = P(self);
  char *m = error ? error->message : NULL;
  size_t ml = error ? sizeof error->message : 0;
  for (uint32_t k = 0; k < count; k++) {
    int i = index_of_id(p, vals[k].parameterID);
    if (i < 0) {
      msgf(m, ml, "no parameter with id %u", (unsigned)vals[k].parameterID);
      return refuse(error, vals[k].parameterID, CADI_STATUS_IllegalArgument);
    }
    if (!p->infos[i].isRunTime) {
      msgf(m, ml, "parameter '%s' can only be set at instantiation", p->infos[i].name);
      return refuse(error, vals[k].parameterID, CADI_STATUS_ArgNotSupported);
    }
    if (tw_mti_param_check(&p->infos[i], &vals[k], m, ml) < 0)
      return refuse(error, vals[k].parameterID, CADI_STATUS_IllegalArgument);
  }
  for (uint32_t k = 0; k < count; k++)
    p->values[index_of_id(p, vals[k].parameterID)] = vals[k];
  if (error) {
    error->errorCode = CADI_STATUS_OK;
    error->message[0] = 0;
  }
  return CADI_STATUS_OK;
}

static const struct MTI_ParameterInterface_vtbl params_vtbl = {
  .iVersion = MTI_ParameterInterface_IFREVISION,
  .ObtainInterface = params_obtain,
  .GetParameterInfos = params_infos,
  .GetParameterInfo = params_info,
  .GetParameterValues = params_get,
  .SetParameterValues = params_set,
};

static void set_default(const eslapi_CADIParameterInfo_t *info, eslapi_CADIParameterValue_t *v)
{
  memset(v, 0, sizeof *v);
  v->parameterID = info->id;
  v->dataType = info->dataType;
  v->intValue = info->defaultValue;
  v->boolValue = info->defaultValue != 0;
  snprintf(v->stringValue, sizeof v->stringValue, "%s", info->defaultString);
}

int tw_mti_params_init(struct tw_mti_params *p, eslapi_CAInterface *owner,
                       const eslapi_CADIParameterInfo_t *infos,
                       eslapi_CADIParameterValue_t *values, uint32_t n, uint32_t ngiven,
                       const eslapi_CADIParameterValue_t *given)
{
  p->base.vtbl = &params_vtbl;
  p->owner = owner;
  p->infos = infos;
  p->values = values;
  p->n = n;
  for (uint32_t k = 0; k < ngiven; k++) {
    int i = index_of_id(p, given[k].parameterID);
    if (i < 0)
      return TW_ENOENT;
    if (tw_mti_param_check(&infos[i], &given[k], NULL, 0) < 0)
      return given[k].dataType != infos[i].dataType ? TW_EINVAL : TW_ERANGE;
  }
  for (uint32_t i = 0; i < n; i++)
    set_default(&infos[i], &values[i]);
  for (uint32_t k = 0; k < ngiven; k++)
    values[index_of_id(p, given[k].parameterID)] = given[k];
  return 0;
}

const eslapi_CADIParameterValue_t *tw_mti_params_get(const struct tw_mti_params *p,
                                                     const char *name)
{
  for (uint32_t i = 0; name && i < p->n; i++)
    if (strcmp(p->infos[i].name, name) == 0)
      return &p->values[i];
  return NULL;
}
