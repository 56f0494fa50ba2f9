/*
 * The ARM Model Trace Interface (MTI), rendered in C.
 *
 * The manual (spec 003) defines C++ abstract classes. Here every class is a
 * struct whose only member is a pointer to a table of function pointers (its
 * "vtbl"); every function takes the object itself as its first argument
 * (`self`). Calling a method reads like the C++ it mirrors:
 *
 *     C++:  src->GetName()           C:  src->vtbl->GetName(src)
 *
 * Names follow the manual: `MTI::TraceSource` is MTI_TraceSource,
 * `eslapi::CAInterface` is eslapi_CAInterface, methods keep their names.
 * C has no overloading, so overloads get a suffix saying what they take:
 * GetTraceSource(index) / GetTraceSourceByName(name), GetField /
 * GetFieldByName, GetComponentTrace / GetComponentTraceByPath,
 * RegisterCounter(uint64_t *) / RegisterCounter32(uint32_t *). Default
 * arguments (user_ptr = 0) become explicit. Templates become one function
 * per type: EventRecord::Get<uint16_t> is MTI_EventRecord_GetU16,
 * GetAs<int64_t> is MTI_EventRecord_GetAsI64.
 *
 * Versioning (SQLite style): every table starts with `iVersion`, the
 * revision of the interface it implements; a member is "valid since
 * revision N" and a caller checks iVersion (or the revision ObtainInterface
 * reported) before touching a newer member. Tables only ever grow at the
 * end. Every table's second member is ObtainInterface, so any object can be
 * cast to eslapi_CAInterface and asked for other interfaces by name and
 * revision (the manual derives only the component-level classes from
 * CAInterface; giving all of them the slot costs nothing and lets a plugin
 * check the revision of a TraceSource or EventClass the same way).
 *
 * Plugin ABI: a plugin is a shared library exporting GetCAInterface()
 * (returns its MTI_PluginFactory as a CAInterface) and the data symbol
 * tw_mti_plugin_abi (see TW_MTI_PLUGIN_EXPORT). The host reads the data
 * symbol first and refuses a plugin built for another TW_MTI_ABI_REVISION
 * without calling any of its functions.
 *
 * Threads: the host calls everything from the thread that feeds the trace
 * (see tracewire/model/mti_host.h); callbacks run on that thread. Objects live as
 * long as the simulation; plugins never free them.
 *
 * docs/mti.md explains the mapping and shows a complete minimal plugin.
 */
#ifndef TRACEWIRE_MTI_H
#define TRACEWIRE_MTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped only when a table changes incompatibly (never, we hope). Adding
 * members at the end of a table bumps that interface's iVersion instead. */
#define TW_MTI_ABI_REVISION 1u
#define TW_MTI_ABI_MAGIC 0x4d544957u /* "WITM" */

/* ---- CAInterface.h ------------------------------------------------------ */

typedef const char *eslapi_if_name_t;
typedef uint32_t eslapi_if_rev_t;

typedef struct eslapi_CAInterface eslapi_CAInterface;

/* The common head of every table below. */
#define ESLAPI_CAINTERFACE_METHODS(SelfT)                                        \
  uint32_t iVersion;                                                           \
  eslapi_CAInterface *(*ObtainInterface)(SelfT * self, eslapi_if_name_t ifName, \
                                         eslapi_if_rev_t minRev,               \
                                         eslapi_if_rev_t *actualRev)

struct eslapi_CAInterface_vtbl {
  ESLAPI_CAINTERFACE_METHODS(eslapi_CAInterface);
};
struct eslapi_CAInterface {
  const struct eslapi_CAInterface_vtbl *vtbl;
};

#define eslapi_CAInterface_IFNAME "eslapi::CAInterface"
#define eslapi_CAInterface_IFREVISION 0u

/* CAInterface::ObtainInterface on any MTI object: NULL when the object does
 * not implement ifName at revision >= minRev; for one name and revision the
 * same pointer for the object's whole life. */
static inline eslapi_CAInterface *eslapi_ObtainInterface(const void *obj, eslapi_if_name_t ifName,
                                                         eslapi_if_rev_t minRev,
                                                         eslapi_if_rev_t *actualRev)
{
  eslapi_CAInterface *ca = (eslapi_CAInterface *)(uintptr_t)obj;
  return ca ? ca->vtbl->ObtainInterface(ca, ifName, minRev, actualRev) : NULL;
}

/* CAInterface::ObtainPointer<TARGET_IF>(): TYPE is a type name below, its
 * TYPE##_IFNAME / TYPE##_IFREVISION macros give the name and revision. */
#define eslapi_ObtainPointer(obj, TYPE)                                          \
  ((TYPE *)eslapi_ObtainInterface((obj), TYPE##_IFNAME, TYPE##_IFREVISION, NULL))

/* ---- ComponentTraceInterface_v1.h: typedefs and Status ------------------ */

typedef uint16_t MTI_EventClassId;
typedef int MTI_SourceIndex;
typedef int MTI_FieldIndex;
typedef int MTI_ValueIndex;
typedef uint32_t MTI_FieldMask;

typedef enum MTI_Status {
  MTI_OK,
  MTI_FUNCTION_NOT_SUPPORTED,
  MTI_PARAMETER_NOT_SUPPORTED,
  MTI_PARAMETER_INVALID,
  MTI_BUSY,
  MTI_ERROR
} MTI_Status;

typedef struct MTI_SystemTraceInterface MTI_SystemTraceInterface;
typedef struct MTI_ComponentTraceInterface MTI_ComponentTraceInterface;
typedef struct MTI_TraceSource MTI_TraceSource;
typedef struct MTI_EventFieldType MTI_EventFieldType;
typedef struct MTI_EventClass MTI_EventClass;
typedef struct MTI_EventRecord MTI_EventRecord;

/* CallbackT: called for every event of a registered class. */
typedef void (*MTI_CallbackT)(void *user_data, const MTI_EventClass *event_class,
                              const MTI_EventRecord *event_record);

/* ---- SystemTraceInterface_v1.h ------------------------------------------ */

typedef int MTI_TraceComponentIndex;

#define MTI_SystemTraceInterface_IFNAME "MTI::SystemTraceInterface"
#define MTI_SystemTraceInterface_IFREVISION 1u

struct MTI_SystemTraceInterface_vtbl {
  ESLAPI_CAINTERFACE_METHODS(eslapi_CAInterface);
  /* since 1 */
  MTI_TraceComponentIndex (*GetNumOfTraceComponents)(const MTI_SystemTraceInterface *self);
  /* NULL for an illegal tci; lives as long as the simulation. */
  const char *(*GetComponentTracePath)(const MTI_SystemTraceInterface *self,
                                       MTI_TraceComponentIndex tci);
  /* A CAInterface: ObtainInterface it to MTI_ComponentTraceInterface. */
  eslapi_CAInterface *(*GetComponentTrace)(const MTI_SystemTraceInterface *self,
                                           MTI_TraceComponentIndex tci);
  eslapi_CAInterface *(*GetComponentTraceByPath)(const MTI_SystemTraceInterface *self,
                                                 const char *component_path);
};
struct MTI_SystemTraceInterface {
  const struct MTI_SystemTraceInterface_vtbl *vtbl;
};

/* ---- ComponentTraceInterface_v1.h --------------------------------------- */

#define MTI_ComponentTraceInterface_IFNAME "MTI::ComponentTraceInterface"
#define MTI_ComponentTraceInterface_IFREVISION 1u

struct MTI_ComponentTraceInterface_vtbl {
  ESLAPI_CAINTERFACE_METHODS(eslapi_CAInterface);
  /* since 1 */
  MTI_SourceIndex (*GetNumOfTraceSources)(const MTI_ComponentTraceInterface *self);
  MTI_TraceSource *(*GetTraceSource)(const MTI_ComponentTraceInterface *self,
                                     MTI_SourceIndex index); /* NULL: bad index */
  MTI_TraceSource *(*GetTraceSourceByName)(const MTI_ComponentTraceInterface *self,
                                           const char *name); /* case-sensitive */
  const MTI_EventClass *(*GetEventClass)(const MTI_ComponentTraceInterface *self,
                                         MTI_EventClassId event_class_id);
  const char *(*GetComponentType)(const MTI_ComponentTraceInterface *self);
  const char *(*GetComponentVersion)(const MTI_ComponentTraceInterface *self);
};
struct MTI_ComponentTraceInterface {
  const struct MTI_ComponentTraceInterface_vtbl *vtbl;
};
/* The manual's alias. */
typedef MTI_ComponentTraceInterface MTI_ModelTraceInterface;

/* ---- TraceSource --------------------------------------------------------- */

#define MTI_TraceSource_IFNAME "MTI::TraceSource"
#define MTI_TraceSource_IFREVISION 1u

struct MTI_TraceSource_vtbl {
  ESLAPI_CAINTERFACE_METHODS(eslapi_CAInterface);
  /* since 1 */
  MTI_SourceIndex (*GetIndex)(const MTI_TraceSource *self);
  const char *(*GetName)(const MTI_TraceSource *self);
  const char *(*GetDescription)(const MTI_TraceSource *self);
  MTI_FieldIndex (*GetNumFields)(const MTI_TraceSource *self);
  const MTI_EventFieldType *(*GetField)(const MTI_TraceSource *self,
                                        MTI_FieldIndex index); /* NULL: bad index */
  const MTI_EventFieldType *(*GetFieldByName)(const MTI_TraceSource *self,
                                              const char *name); /* NULL: unknown */
  /* NULL when field_mask selects a field the source does not have. The
   * same mask on the same source returns the same class. */
  MTI_EventClass *(*CreateEventClass)(const MTI_TraceSource *self, MTI_FieldMask field_mask);
  /* Counters: +1 per event of this source. Storage is the caller's and is
   * not initialised here. Only while the simulation is stopped (else
   * MTI_BUSY); a duplicate or unknown counter is MTI_PARAMETER_INVALID. */
  MTI_Status (*RegisterCounter)(MTI_TraceSource *self, uint64_t *counter);
  MTI_Status (*UnregisterCounter)(MTI_TraceSource *self, uint64_t *counter);
  MTI_Status (*RegisterCounter32)(MTI_TraceSource *self, uint32_t *counter);
  MTI_Status (*UnregisterCounter32)(MTI_TraceSource *self, uint32_t *counter);
};
struct MTI_TraceSource {
  const struct MTI_TraceSource_vtbl *vtbl;
};

/* ---- EventFieldType ------------------------------------------------------ */

#define MTI_EventFieldType_IFNAME "MTI::EventFieldType"
#define MTI_EventFieldType_IFREVISION 1u

/* EventFieldType::Type */
typedef enum MTI_EventFieldType_Type {
  MTI_UNSIGNED_INT,
  MTI_SIGNED_INT,
  MTI_BOOL,
  MTI_ENUM,
  MTI_FLOAT,
  MTI_STRING
} MTI_EventFieldType_Type;

typedef uint16_t MTI_EventFieldType_Size;
typedef uint32_t MTI_EventFieldType_EnumIndex;

/* EventFieldType::EnumConstant, std::pair<uint32_t, const char *>. */
typedef struct MTI_EventFieldType_EnumConstant {
  uint32_t first;     /* value */
  const char *second; /* name; NULL for an index out of range */
} MTI_EventFieldType_EnumConstant;

struct MTI_EventFieldType_vtbl {
  ESLAPI_CAINTERFACE_METHODS(eslapi_CAInterface);
  /* since 1 */
  const MTI_TraceSource *(*GetSource)(const MTI_EventFieldType *self);
  MTI_FieldIndex (*GetIndex)(const MTI_EventFieldType *self);
  const char *(*GetName)(const MTI_EventFieldType *self);
  const char *(*GetDescription)(const MTI_EventFieldType *self);
  MTI_EventFieldType_Type (*GetType)(const MTI_EventFieldType *self);
  /* Bytes; 0 = variable size, at most GetMaxSize(). */
  MTI_EventFieldType_Size (*GetSize)(const MTI_EventFieldType *self);
  MTI_EventFieldType_Size (*GetMaxSize)(const MTI_EventFieldType *self);
  MTI_EventFieldType_EnumIndex (*GetNumOfEnumConstants)(const MTI_EventFieldType *self);
  MTI_EventFieldType_EnumConstant (*GetEnumConstant)(const MTI_EventFieldType *self,
                                                     MTI_EventFieldType_EnumIndex enum_index);
  const char *(*LookupEnum)(const MTI_EventFieldType *self, uint32_t value); /* NULL: none */
  /* tracewire additions, since 1: the marker a viewer draws for an enum
   * constant ("UpBlock"; NULL when none or out of range), and the kind of
   * numbered object the value names ("task", "mutex"; NULL when none). */
  const char *(*GetEnumMarker)(const MTI_EventFieldType *self,
                               MTI_EventFieldType_EnumIndex enum_index);
  const char *(*GetObjectKind)(const MTI_EventFieldType *self);
};
struct MTI_EventFieldType {
  const struct MTI_EventFieldType_vtbl *vtbl;
};

/* ---- EventClass ---------------------------------------------------------- */

#define MTI_EventClass_IFNAME "MTI::EventClass"
#define MTI_EventClass_IFREVISION 1u

struct MTI_EventClass_vtbl {
  ESLAPI_CAINTERFACE_METHODS(eslapi_CAInterface);
  /* since 1 */
  MTI_EventClassId (*GetId)(const MTI_EventClass *self);
  const MTI_TraceSource *(*GetSource)(const MTI_EventClass *self);
  MTI_FieldMask (*GetMask)(const MTI_EventClass *self);
  /* Maximum size when values have variable size. */
  size_t (*GetEventRecordSize)(const MTI_EventClass *self);
  MTI_ValueIndex (*GetNumValues)(const MTI_EventClass *self); /* bits set in mask */
  const MTI_EventFieldType *(*GetEventField)(const MTI_EventClass *self, MTI_ValueIndex vidx);
  MTI_ValueIndex (*GetValueIndex)(const MTI_EventClass *self, const char *name); /* -1 */
  /* 0 for an illegal vidx: offset 0 holds event_class_id. */
  size_t (*GetValueOffset)(const MTI_EventClass *self, MTI_ValueIndex vidx);
  /* Only while stopped (else MTI_BUSY). The same callback may be
   * registered with different user_ptr values; a repeated callback/user_ptr
   * pair, or unregistering one that is not registered, is
   * MTI_PARAMETER_INVALID. */
  MTI_Status (*RegisterCallback)(MTI_EventClass *self, MTI_CallbackT callback, void *user_ptr);
  MTI_Status (*UnregisterCallback)(MTI_EventClass *self, MTI_CallbackT callback,
                                   void *user_ptr);
  /* Report the source's current state through callback, at any time
   * (also from a callback of another source); returns after the calls.
   * MTI_FUNCTION_NOT_SUPPORTED for sources without state. */
  MTI_Status (*DumpState)(MTI_EventClass *self, MTI_CallbackT callback, void *user_ptr);
};
struct MTI_EventClass {
  const struct MTI_EventClass_vtbl *vtbl;
};

/* ---- EventRecord --------------------------------------------------------- */

/* Starts with the class id; the values follow at the offsets the class
 * reports. A value of variable size is preceded by its size, a
 * MTI_EventFieldType_Size in host byte order stored in the two bytes just
 * before the value; a variable STRING value is also followed by a NUL that
 * the size does not count. Values are in host byte order. */
struct MTI_EventRecord {
  MTI_EventClassId event_class_id;
};

static inline const uint8_t *MTI_EventRecord_GetPtr(const MTI_EventRecord *r,
                                                    const MTI_EventClass *ec,
                                                    MTI_ValueIndex vidx)
{
  return (const uint8_t *)r + ec->vtbl->GetValueOffset(ec, vidx);
}

/* Only for values of variable size (GetSize() works for both). */
static inline MTI_EventFieldType_Size MTI_EventRecord_GetVariableSize(const MTI_EventRecord *r,
                                                                      const MTI_EventClass *ec,
                                                                      MTI_ValueIndex vidx)
{
  size_t off = ec->vtbl->GetValueOffset(ec, vidx);
  MTI_EventFieldType_Size n = 0;
  if (off >= sizeof n)
    memcpy(&n, (const uint8_t *)r + off - sizeof n, sizeof n);
  return n;
}

static inline MTI_EventFieldType_Size MTI_EventRecord_GetSize(const MTI_EventRecord *r,
                                                              const MTI_EventClass *ec,
                                                              MTI_ValueIndex vidx)
{
  const MTI_EventFieldType *f = ec->vtbl->GetEventField(ec, vidx);
  MTI_EventFieldType_Size n;
  if (!f)
    return 0;
  n = f->vtbl->GetSize(f);
  return n ? n : MTI_EventRecord_GetVariableSize(r, ec, vidx);
}

/* EventRecord::Get<T>: the value must have exactly T's size (check once
 * with GetSize/GetType, or use GetAs). */
#define MTI__RECORD_GET(Name, T)                                                 \
  static inline T MTI_EventRecord_Get##Name(const MTI_EventRecord *r,            \
                                            const MTI_EventClass *ec,            \
                                            MTI_ValueIndex vidx)                 \
  {                                                                              \
    T v;                                                                         \
    memcpy(&v, MTI_EventRecord_GetPtr(r, ec, vidx), sizeof v);                   \
    return v;                                                                    \
  }
MTI__RECORD_GET(U8, uint8_t)
MTI__RECORD_GET(U16, uint16_t)
MTI__RECORD_GET(U32, uint32_t)
MTI__RECORD_GET(U64, uint64_t)
MTI__RECORD_GET(I8, int8_t)
MTI__RECORD_GET(I16, int16_t)
MTI__RECORD_GET(I32, int32_t)
MTI__RECORD_GET(I64, int64_t)
/* Get<float> / Get<double>: beyond the manual's list (integers only), for
 * MTI_FLOAT values of size 4 / 8. tracewire's F32 custom fields are
 * MTI_FLOAT of size 4. */
MTI__RECORD_GET(F32, float)
MTI__RECORD_GET(F64, double)

static inline bool MTI_EventRecord_GetBool(const MTI_EventRecord *r, const MTI_EventClass *ec,
                                           MTI_ValueIndex vidx)
{
  return *MTI_EventRecord_GetPtr(r, ec, vidx) != 0;
}

/* The value widened to 64 bits: sign-extended for MTI_SIGNED_INT,
 * zero-extended otherwise (an MTI_FLOAT gives its bits, not a converted
 * number: read it with GetF32/GetF64); 0 for an illegal vidx. Sizes other than 1, 2,
 * 4, 8 are read as their first (up to 8) bytes in host byte order. */
static inline uint64_t MTI_EventRecord_GetAs64(const MTI_EventRecord *r,
                                               const MTI_EventClass *ec,
                                               MTI_ValueIndex vidx)
{
  const MTI_EventFieldType *f = ec->vtbl->GetEventField(ec, vidx);
  const uint8_t *p;
  size_t n;
  if (!f)
    return 0;
  p = MTI_EventRecord_GetPtr(r, ec, vidx);
  n = MTI_EventRecord_GetSize(r, ec, vidx);
  if (f->vtbl->GetType(f) == MTI_SIGNED_INT) {
    switch (n) {
    case 1: { int8_t v; memcpy(&v, p, 1); return (uint64_t)(int64_t)v; }
    case 2: { int16_t v; memcpy(&v, p, 2); return (uint64_t)(int64_t)v; }
    case 4: { int32_t v; memcpy(&v, p, 4); return (uint64_t)(int64_t)v; }
    default: break;
    }
  } else {
    switch (n) {
    case 1: return *p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: break;
    }
  }
  {
    uint64_t v = 0;
    memcpy(&v, p, n < 8 ? n : 8);
    return v;
  }
}

/* EventRecord::GetAs<T>: extended or truncated to T; signed values are
 * sign-extended. */
#define MTI__RECORD_GETAS(Name, T)                                               \
  static inline T MTI_EventRecord_GetAs##Name(const MTI_EventRecord *r,          \
                                              const MTI_EventClass *ec,          \
                                              MTI_ValueIndex vidx)               \
  {                                                                              \
    return (T)MTI_EventRecord_GetAs64(r, ec, vidx);                              \
  }
MTI__RECORD_GETAS(U8, uint8_t)
MTI__RECORD_GETAS(U16, uint16_t)
MTI__RECORD_GETAS(U32, uint32_t)
MTI__RECORD_GETAS(U64, uint64_t)
MTI__RECORD_GETAS(I8, int8_t)
MTI__RECORD_GETAS(I16, int16_t)
MTI__RECORD_GETAS(I32, int32_t)
MTI__RECORD_GETAS(I64, int64_t)

/* ---- eslapi/CADITypes.h (the subset MTI uses) ---------------------------- */

typedef enum eslapi_CADIReturn_t {
  CADI_STATUS_OK = 0,
  CADI_STATUS_GeneralError,
  CADI_STATUS_UnknownCommand,
  CADI_STATUS_IllegalArgument,
  CADI_STATUS_CmdNotSupported,
  CADI_STATUS_ArgNotSupported,
  CADI_STATUS_InsufficientResources,
  CADI_STATUS_TargetNotResponding,
  CADI_STATUS_TargetBusy,
  CADI_STATUS_BufferSize,
  CADI_STATUS_SecurityViolation,
  CADI_STATUS_PermissionDenied
} eslapi_CADIReturn_t;

typedef enum eslapi_CADIParamType_t {
  CADI_PARAM_INVALID = 0,
  CADI_PARAM_BOOL,
  CADI_PARAM_INT,
  CADI_PARAM_STRING
} eslapi_CADIParamType_t;

#define CADI_NAME_SIZE 128
#define CADI_DESCRIPTION_SIZE 256

typedef struct eslapi_CADIParameterInfo_t {
  uint32_t id;                         /* unique within the factory */
  char name[CADI_NAME_SIZE];           /* local name: "mask" */
  eslapi_CADIParamType_t dataType;
  char description[CADI_DESCRIPTION_SIZE];
  uint32_t isRunTime;                  /* 1: settable through ParameterInterface */
  int64_t minValue, maxValue;          /* CADI_PARAM_INT (and BOOL: 0..1) */
  int64_t defaultValue;                /* CADI_PARAM_INT / CADI_PARAM_BOOL */
  char defaultString[CADI_DESCRIPTION_SIZE]; /* CADI_PARAM_STRING */
} eslapi_CADIParameterInfo_t;

typedef struct eslapi_CADIParameterValue_t {
  uint32_t parameterID;
  eslapi_CADIParamType_t dataType;
  int64_t intValue;
  uint32_t boolValue;
  char stringValue[CADI_DESCRIPTION_SIZE];
} eslapi_CADIParameterValue_t;

typedef struct eslapi_CADIFactoryErrorMessage_t {
  uint32_t errorCode;              /* an eslapi_CADIReturn_t */
  uint32_t erroneousParameterId;
  char message[CADI_DESCRIPTION_SIZE];
} eslapi_CADIFactoryErrorMessage_t;

/* ---- ParameterInterface_v0.h -------------------------------------------- */

typedef struct MTI_ParameterInterface MTI_ParameterInterface;

#define MTI_ParameterInterface_IFNAME "MTI::ParameterInterface"
#define MTI_ParameterInterface_IFREVISION 0u

struct MTI_ParameterInterface_vtbl {
  ESLAPI_CAINTERFACE_METHODS(eslapi_CAInterface);
  /* since 0 */
  eslapi_CADIReturn_t (*GetParameterInfos)(MTI_ParameterInterface *self, uint32_t startIndex,
                                           uint32_t desiredNumOfParams,
                                           uint32_t *actualNumOfParams,
                                           eslapi_CADIParameterInfo_t *params);
  eslapi_CADIReturn_t (*GetParameterInfo)(MTI_ParameterInterface *self,
                                          const char *parameterName,
                                          eslapi_CADIParameterInfo_t *param);
  /* The caller sets parameterID of each entry; the callee fills values. */
  eslapi_CADIReturn_t (*GetParameterValues)(MTI_ParameterInterface *self,
                                            uint32_t parameterCount,
                                            uint32_t *actualNumOfParamsRead,
                                            eslapi_CADIParameterValue_t *paramValuesOut);
  eslapi_CADIReturn_t (*SetParameterValues)(MTI_ParameterInterface *self,
                                            uint32_t parameterCount,
                                            eslapi_CADIParameterValue_t *parameters,
                                            eslapi_CADIFactoryErrorMessage_t *error);
};
struct MTI_ParameterInterface {
  const struct MTI_ParameterInterface_vtbl *vtbl;
};

/* ---- PluginInstance_v0.h ------------------------------------------------- */

typedef struct MTI_PluginInstance MTI_PluginInstance;

#define MTI_PluginInstance_IFNAME "MTI::PluginInstance"
#define MTI_PluginInstance_IFREVISION 0u

struct MTI_PluginInstance_vtbl {
  ESLAPI_CAINTERFACE_METHODS(eslapi_CAInterface);
  /* since 0 */
  /* simulation: ObtainInterface it to MTI_SystemTraceInterface. Called once
   * per instance while the simulation is stopped. */
  eslapi_CADIReturn_t (*RegisterSimulation)(MTI_PluginInstance *self,
                                            eslapi_CAInterface *simulation);
  void (*Release)(MTI_PluginInstance *self); /* no further calls after it */
  const char *(*GetName)(const MTI_PluginInstance *self);
};
struct MTI_PluginInstance {
  const struct MTI_PluginInstance_vtbl *vtbl;
};

/* ---- PluginFactory_v0.h / PluginFactory_v1.h ----------------------------- */

typedef struct MTI_PluginFactory MTI_PluginFactory;

#define MTI_PluginFactory_IFNAME "MTI::PluginFactory"
#define MTI_PluginFactory_IFREVISION 1u

struct MTI_PluginFactory_vtbl {
  ESLAPI_CAINTERFACE_METHODS(eslapi_CAInterface);
  /* since 0 */
  uint32_t (*GetNumberOfParameters)(MTI_PluginFactory *self);
  /* Fills GetNumberOfParameters() entries; isRunTime says which ones the
   * instance's ParameterInterface can change later. */
  eslapi_CADIReturn_t (*GetParameterInfos)(MTI_PluginFactory *self,
                                           eslapi_CADIParameterInfo_t *parameter_info_list);
  /* Returns the instance as a CAInterface (ObtainInterface it to
   * MTI_PluginInstance), or NULL. Values come matched by parameterID, 0 to
   * all of them; the host has already checked names, types and ranges. */
  eslapi_CAInterface *(*Instantiate)(MTI_PluginFactory *self, const char *instance_name,
                                     uint32_t number_of_parameters,
                                     eslapi_CADIParameterValue_t *parameter_values);
  void (*Release)(MTI_PluginFactory *self);
  /* since 1 */
  const char *(*GetPrefix)(MTI_PluginFactory *self);
};
struct MTI_PluginFactory {
  const struct MTI_PluginFactory_vtbl *vtbl;
};

/* ---- PluginInterface.h -------------------------------------------------- */

typedef eslapi_CAInterface *(*GetCAInterfaceFunc)(void);

/* The ABI stamp a plugin exports next to GetCAInterface; the host reads it
 * before calling anything in the library. */
struct tw_mti_plugin_abi {
  uint32_t magic;    /* TW_MTI_ABI_MAGIC */
  uint32_t revision; /* TW_MTI_ABI_REVISION the plugin was built with */
  const char *built_with; /* tracewire version string, for messages */
};

#define TW_MTI_PLUGIN_ENTRY_SYMBOL "GetCAInterface"
#define TW_MTI_PLUGIN_ABI_SYMBOL "tw_mti_plugin_abi"
#define TW_MTI_VERSION_STRING "0.1.0"

#if defined(__GNUC__)
#define TW_MTI_PLUGIN_INTERFACE_WEXP __attribute__((visibility("default")))
#else
#define TW_MTI_PLUGIN_INTERFACE_WEXP
#endif

/* In exactly one file of a plugin:
 *     TW_MTI_PLUGIN_EXPORT(&my_factory.base)
 * defines GetCAInterface() returning that factory and the ABI stamp. */
#define TW_MTI_PLUGIN_EXPORT(factory_ptr)                                        \
  TW_MTI_PLUGIN_INTERFACE_WEXP const struct tw_mti_plugin_abi tw_mti_plugin_abi = \
      {TW_MTI_ABI_MAGIC, TW_MTI_ABI_REVISION, TW_MTI_VERSION_STRING};            \
  TW_MTI_PLUGIN_INTERFACE_WEXP eslapi_CAInterface *GetCAInterface(void);         \
  TW_MTI_PLUGIN_INTERFACE_WEXP eslapi_CAInterface *GetCAInterface(void)          \
  {                                                                              \
    return (eslapi_CAInterface *)(factory_ptr);                                  \
  }

/* ---- tracewire additions ------------------------------------------------- */

/* Obtainable from the simulation (the SystemTraceInterface's component):
 * what the MTI record cannot carry. Valid in callbacks. */
typedef struct TW_TraceContext TW_TraceContext;

#define TW_TraceContext_IFNAME "tracewire::TraceContext"
#define TW_TraceContext_IFREVISION 2u

struct tw_event; /* tracewire/event.h */
struct tw_rtos;  /* tracewire/model/rtos.h */

struct TW_TraceContext_vtbl {
  ESLAPI_CAINTERFACE_METHODS(eslapi_CAInterface);
  /* since 0 */
  /* The decoded event being delivered, or NULL outside an event callback
   * (in DumpState callbacks, for instance). */
  const struct tw_event *(*GetCurrentEvent)(const TW_TraceContext *self);
  /* Name of numbered object (kind is enum tw_obj_kind, as in
   * GetObjectKind's value) on the component's endpoint, NULL if never
   * named. Lives until the simulation ends. */
  const char *(*LookupObjectName)(const TW_TraceContext *self,
                                  const MTI_ComponentTraceInterface *component, int kind,
                                  uint32_t number);
  /* Component of the current event (NULL outside event callbacks). */
  const MTI_ComponentTraceInterface *(*GetCurrentComponent)(const TW_TraceContext *self);
  /* since 1 */
  /* The RTOS state model (tracewire/model/rtos.h: names, task states,
   * objects, cores; docs/model.md), kept from this call on for every
   * component. Query it, or observe it (tw_rtos_observe) from
   * RegisterSimulation: its changes for an event come before the event's
   * callbacks. Never NULL; lives as long as the simulation. */
  struct tw_rtos *(*GetModel)(const TW_TraceContext *self);
  /* since 2 */
  /* The plugin could not do its job (its output could not be written, a
   * file could not be opened): the host says "tracewire: WHO: WHAT" on
   * stderr and ends with a failure exit status. Any time. */
  void (*ReportFailure)(const TW_TraceContext *self, const char *who, const char *what);
};
struct TW_TraceContext {
  const struct TW_TraceContext_vtbl *vtbl;
};

#ifdef __cplusplus
}
#endif

#endif
