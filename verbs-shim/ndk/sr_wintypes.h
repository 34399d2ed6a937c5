/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sr_wintypes.h — the Windows base types the NDK, OFW and ND2 headers use,
 * defined for Linux with their Windows (LLP64) sizes: ULONG and LONG are 32
 * bits, ULONG_PTR and SIZE_T pointer-sized, BOOLEAN one byte, BOOL four.
 * Each definition is written from the Windows documentation of the type;
 * static_asserts below check the sizes.
 *
 * NTSTATUS values: SR_NTSTATUS_LIST is the one list of every status code
 * the NDK shim returns or reports (name, value as documented in ntstatus.h);
 * the STATUS_* macros and sr_ntstatus_str() expand from it.
 */
#ifndef SR_WINTYPES_H
#define SR_WINTYPES_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#ifndef VOID
#define VOID void
#endif
#ifndef CONST
#define CONST const
#endif
#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif

typedef void *PVOID;
typedef const void *PCVOID;
typedef void *HANDLE;
typedef uint8_t UCHAR;
typedef uint8_t BYTE;
typedef uint8_t BOOLEAN;
typedef int32_t BOOL;
typedef int16_t CSHORT;
typedef uint16_t USHORT;
typedef uint16_t UINT16;
typedef int32_t LONG;
typedef uint32_t ULONG;
typedef uint32_t DWORD;
typedef uint32_t UINT32;
typedef int32_t INT32;
typedef int64_t LONG64;
typedef int64_t LONGLONG;
typedef uint64_t ULONGLONG;
typedef uint64_t ULONG64;
typedef uint64_t UINT64;
typedef uintptr_t ULONG_PTR;
typedef intptr_t LONG_PTR;
typedef size_t SIZE_T;
typedef ULONG *PULONG;
typedef char CHAR;
typedef const char *PCSTR;
typedef LONG NTSTATUS;
typedef LONG HRESULT;
typedef ULONG_PTR KAFFINITY;
typedef ULONG_PTR PFN_NUMBER;
typedef PFN_NUMBER *PPFN_NUMBER;

/* LARGE_INTEGER and PHYSICAL_ADDRESS (the adapter logical address). */
typedef union _LARGE_INTEGER {
	struct {
		ULONG LowPart;
		LONG HighPart;
	};
	struct {
		ULONG LowPart;
		LONG HighPart;
	} u;
	LONGLONG QuadPart;
} LARGE_INTEGER;

typedef LARGE_INTEGER PHYSICAL_ADDRESS, *PPHYSICAL_ADDRESS;

typedef struct _GUID {
	ULONG Data1;
	USHORT Data2;
	USHORT Data3;
	UCHAR Data4[8];
} GUID;

typedef GUID IID;
typedef const IID *REFIID;
typedef const GUID *REFGUID;

typedef struct _GROUP_AFFINITY {
	KAFFINITY Mask;
	USHORT Group;
	USHORT Reserved[3];
} GROUP_AFFINITY, *PGROUP_AFFINITY;

/* OVERLAPPED (minwinbase.h): Internal holds the status of the request. */
typedef struct _OVERLAPPED {
	ULONG_PTR Internal;
	ULONG_PTR InternalHigh;
	union {
		struct {
			DWORD Offset;
			DWORD OffsetHigh;
		};
		PVOID Pointer;
	};
	HANDLE hEvent;
} OVERLAPPED, *LPOVERLAPPED;

typedef struct sockaddr SOCKADDR, *PSOCKADDR;

typedef struct _SOCKET_ADDRESS {
	struct sockaddr *lpSockaddr;
	int iSockaddrLength;
} SOCKET_ADDRESS;

typedef struct _SOCKET_ADDRESS_LIST {
	int iAddressCount;
	SOCKET_ADDRESS Address[1];
} SOCKET_ADDRESS_LIST;

/* X(name, value): NTSTATUS codes (ntstatus.h values). */
#define SR_NTSTATUS_LIST(X)                                          \
	X(STATUS_SUCCESS,                0x00000000)                 \
	X(STATUS_TIMEOUT,                0x00000102)                 \
	X(STATUS_PENDING,                0x00000103)                 \
	X(STATUS_BUFFER_OVERFLOW,        0x80000005)                 \
	X(STATUS_DEVICE_BUSY,            0x80000011)                 \
	X(STATUS_NO_MORE_ENTRIES,        0x8000001A)                 \
	X(STATUS_UNSUCCESSFUL,           0xC0000001)                 \
	X(STATUS_NOT_IMPLEMENTED,        0xC0000002)                 \
	X(STATUS_ACCESS_VIOLATION,       0xC0000005)                 \
	X(STATUS_INVALID_HANDLE,         0xC0000008)                 \
	X(STATUS_INVALID_PARAMETER,      0xC000000D)                 \
	X(STATUS_NO_MEMORY,              0xC0000017)                 \
	X(STATUS_ACCESS_DENIED,          0xC0000022)                 \
	X(STATUS_BUFFER_TOO_SMALL,       0xC0000023)                 \
	X(STATUS_INVALID_PARAMETER_MIX,  0xC0000030)                 \
	X(STATUS_DATA_OVERRUN,           0xC000003C)                 \
	X(STATUS_INSUFFICIENT_RESOURCES, 0xC000009A)                 \
	X(STATUS_DEVICE_NOT_READY,       0xC00000A3)                 \
	X(STATUS_IO_TIMEOUT,             0xC00000B5)                 \
	X(STATUS_NOT_SUPPORTED,          0xC00000BB)                 \
	X(STATUS_INTERNAL_ERROR,         0xC00000E5)                 \
	X(STATUS_CANCELLED,              0xC0000120)                 \
	X(STATUS_REQUEST_ABORTED,        0xC0000240)                 \
	X(STATUS_IMPLEMENTATION_LIMIT,   0xC000042B)                 \
	X(STATUS_INVALID_DEVICE_STATE,   0xC0000184)                 \
	X(STATUS_INVALID_ADDRESS,        0xC0000141)                 \
	X(STATUS_REMOTE_ERROR,           0xC000013D)                 \
	X(STATUS_REMOTE_RESOURCES,       0xC000013D)                 \
	X(STATUS_FILE_FORCED_CLOSED,     0xC00000B6)                 \
	X(STATUS_INVALID_ADDRESS_COMPONENT, 0xC0000207)              \
	X(STATUS_TOO_MANY_ADDRESSES,     0xC0000209)                 \
	X(STATUS_ADDRESS_CLOSED,         0xC000020B)                 \
	X(STATUS_NETWORK_UNREACHABLE,    0xC000023C)                 \
	X(STATUS_PROTOCOL_UNREACHABLE,   0xC000023E)                 \
	X(STATUS_PORT_UNREACHABLE,       0xC000023F)                 \
	X(STATUS_ADDRESS_ALREADY_EXISTS, 0xC000020A)                 \
	X(STATUS_INVALID_BUFFER_SIZE,    0xC0000206)                 \
	X(STATUS_CONNECTION_REFUSED,     0xC0000236)                 \
	X(STATUS_CONNECTION_DISCONNECTED, 0xC000020C)                \
	X(STATUS_CONNECTION_RESET,       0xC000020D)                 \
	X(STATUS_CONNECTION_INVALID,     0xC000023A)                 \
	X(STATUS_CONNECTION_ACTIVE,      0xC000023B)                 \
	X(STATUS_HOST_UNREACHABLE,       0xC000023D)                 \
	X(STATUS_CONNECTION_ABORTED,     0xC0000241)                 \
	X(STATUS_DEVICE_REMOVED,         0xC00002B6)

/* The macros, as ntstatus.h spells them; status.c checks each against the list. */
#define STATUS_SUCCESS                ((NTSTATUS)0x00000000L)
#define STATUS_TIMEOUT                ((NTSTATUS)0x00000102L)
#define STATUS_PENDING                ((NTSTATUS)0x00000103L)
#define STATUS_BUFFER_OVERFLOW        ((NTSTATUS)0x80000005L)
#define STATUS_DEVICE_BUSY            ((NTSTATUS)0x80000011L)
#define STATUS_NO_MORE_ENTRIES        ((NTSTATUS)0x8000001AL)
#define STATUS_UNSUCCESSFUL           ((NTSTATUS)0xC0000001L)
#define STATUS_NOT_IMPLEMENTED        ((NTSTATUS)0xC0000002L)
#define STATUS_ACCESS_VIOLATION       ((NTSTATUS)0xC0000005L)
#define STATUS_INVALID_HANDLE         ((NTSTATUS)0xC0000008L)
#define STATUS_INVALID_PARAMETER      ((NTSTATUS)0xC000000DL)
#define STATUS_NO_MEMORY              ((NTSTATUS)0xC0000017L)
#define STATUS_ACCESS_DENIED          ((NTSTATUS)0xC0000022L)
#define STATUS_BUFFER_TOO_SMALL       ((NTSTATUS)0xC0000023L)
#define STATUS_INVALID_PARAMETER_MIX  ((NTSTATUS)0xC0000030L)
#define STATUS_DATA_OVERRUN           ((NTSTATUS)0xC000003CL)
#define STATUS_INSUFFICIENT_RESOURCES ((NTSTATUS)0xC000009AL)
#define STATUS_DEVICE_NOT_READY       ((NTSTATUS)0xC00000A3L)
#define STATUS_IO_TIMEOUT             ((NTSTATUS)0xC00000B5L)
#define STATUS_NOT_SUPPORTED          ((NTSTATUS)0xC00000BBL)
#define STATUS_INTERNAL_ERROR         ((NTSTATUS)0xC00000E5L)
#define STATUS_CANCELLED              ((NTSTATUS)0xC0000120L)
#define STATUS_REQUEST_ABORTED        ((NTSTATUS)0xC0000240L)
#define STATUS_IMPLEMENTATION_LIMIT   ((NTSTATUS)0xC000042BL)
#define STATUS_INVALID_DEVICE_STATE   ((NTSTATUS)0xC0000184L)
#define STATUS_INVALID_ADDRESS        ((NTSTATUS)0xC0000141L)
#define STATUS_REMOTE_ERROR           ((NTSTATUS)0xC000013DL)
/* ntstatus.h's name of 0xC000013D, which NDKPI's completions use */
#define STATUS_REMOTE_RESOURCES       ((NTSTATUS)0xC000013DL)
#define STATUS_FILE_FORCED_CLOSED     ((NTSTATUS)0xC00000B6L)
#define STATUS_INVALID_ADDRESS_COMPONENT ((NTSTATUS)0xC0000207L)
#define STATUS_TOO_MANY_ADDRESSES     ((NTSTATUS)0xC0000209L)
#define STATUS_ADDRESS_CLOSED         ((NTSTATUS)0xC000020BL)
#define STATUS_NETWORK_UNREACHABLE    ((NTSTATUS)0xC000023CL)
#define STATUS_PROTOCOL_UNREACHABLE   ((NTSTATUS)0xC000023EL)
#define STATUS_PORT_UNREACHABLE       ((NTSTATUS)0xC000023FL)
#define STATUS_ADDRESS_ALREADY_EXISTS ((NTSTATUS)0xC000020AL)
#define STATUS_INVALID_BUFFER_SIZE    ((NTSTATUS)0xC0000206L)
#define STATUS_CONNECTION_REFUSED     ((NTSTATUS)0xC0000236L)
#define STATUS_CONNECTION_DISCONNECTED ((NTSTATUS)0xC000020CL)
#define STATUS_CONNECTION_RESET       ((NTSTATUS)0xC000020DL)
#define STATUS_CONNECTION_INVALID     ((NTSTATUS)0xC000023AL)
#define STATUS_CONNECTION_ACTIVE      ((NTSTATUS)0xC000023BL)
#define STATUS_HOST_UNREACHABLE       ((NTSTATUS)0xC000023DL)
#define STATUS_CONNECTION_ABORTED     ((NTSTATUS)0xC0000241L)
#define STATUS_DEVICE_REMOVED         ((NTSTATUS)0xC00002B6L)

#define NT_SUCCESS(Status) (((NTSTATUS)(Status)) >= 0)

/* The name of a status code ("STATUS_PENDING"), or "STATUS_?". */
const char *sr_ntstatus_str(NTSTATUS s);

static_assert(sizeof(ULONG) == 4, "ULONG is 32 bits");
static_assert(sizeof(LONG) == 4, "LONG is 32 bits");
static_assert(sizeof(USHORT) == 2, "USHORT is 16 bits");
static_assert(sizeof(BOOLEAN) == 1, "BOOLEAN is one byte");
static_assert(sizeof(BOOL) == 4, "BOOL is 32 bits");
static_assert(sizeof(ULONG_PTR) == sizeof(void *), "ULONG_PTR is pointer-sized");
static_assert(sizeof(PHYSICAL_ADDRESS) == 8, "PHYSICAL_ADDRESS is 64 bits");
static_assert(sizeof(GUID) == 16, "GUID is 16 bytes");
static_assert(sizeof(OVERLAPPED) == 4 * sizeof(void *) || sizeof(OVERLAPPED) == 32,
	      "OVERLAPPED layout");

#endif /* SR_WINTYPES_H */
