#include "tracewire/error.h"

const char *tw_err_name(int err)
{
  switch (err) {
#define XX(name, val, msg) case TW_##name: return "TW_" #name;
    TW_ERRNO_MAP(XX)
#undef XX
  case 0: return "TW_OK";
  default: return "TW_E?";
  }
}

const char *tw_strerror(int err)
{
  switch (err) {
#define XX(name, val, msg) case TW_##name: return msg;
    TW_ERRNO_MAP(XX)
#undef XX
  case 0: return "success";
  default: return "unknown error";
  }
}
