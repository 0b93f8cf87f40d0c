package match

import (
	"errors"
	"strconv"
)

// Errno is the errno-like code of a failed operation. Fluxion's tools print
// results that depend on it (ENODEV means "unsatisfiable", EBUSY "not now"),
// so the matcher keeps it exactly.
type Errno int

// Error codes, numbered as on Linux.
const (
	ENOENT    Errno = 2
	ENOMEM    Errno = 12
	EBUSY     Errno = 16
	EEXIST    Errno = 17
	ENODEV    Errno = 19
	EINVAL    Errno = 22
	ENOTTY    Errno = 25
	ERANGE    Errno = 34
	ENOSYS    Errno = 38
	EPROTO    Errno = 71
	EOVERFLOW Errno = 75
	ENOTSUP   Errno = 95
)

var errnoText = map[Errno]string{
	0:         "Success",
	ENOENT:    "No such file or directory",
	ENOMEM:    "Cannot allocate memory",
	EBUSY:     "Device or resource busy",
	EEXIST:    "File exists",
	ENODEV:    "No such device",
	EINVAL:    "Invalid argument",
	ENOTTY:    "Inappropriate ioctl for device",
	ERANGE:    "Numerical result out of range",
	ENOSYS:    "Function not implemented",
	EPROTO:    "Protocol error",
	EOVERFLOW: "Value too large for defined data type",
	ENOTSUP:   "Operation not supported",
}

// String returns the C library's strerror text.
func (e Errno) String() string {
	if s, ok := errnoText[e]; ok {
		return s
	}
	return "Unknown error " + strconv.Itoa(int(e))
}

// Sentinel errors for errors.Is.
var (
	// ErrBusy: the request fits the graph but not now (or not before the
	// search horizon).
	ErrBusy = errors.New("resources busy")
	// ErrUnsatisfiable: the request can never be met by this graph.
	ErrUnsatisfiable = errors.New("unsatisfiable request")
	// ErrInvalid: a bad argument (duration, empty request, bad option, a
	// job id that already holds resources…).
	ErrInvalid = errors.New("invalid argument")
	// ErrNotFound: an unknown job, path or rank.
	ErrNotFound = errors.New("not found")
)

// Error describes a failed matcher operation. Msg is the accumulated
// traverser message, in Fluxion's wording (it may be empty).
type Error struct {
	Op    string
	Errno Errno
	Msg   string
}

func (e *Error) Error() string {
	s := e.Op + ": " + e.Errno.String()
	if e.Msg != "" {
		s += ": " + trimNL(e.Msg)
	}
	return s
}

// Is maps the errno onto the package's sentinel errors.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrBusy:
		return e.Errno == EBUSY
	case ErrUnsatisfiable:
		// resource-query prints "Unsatisfiable request" for ENOENT too.
		return e.Errno == ENODEV || (e.Errno == ENOENT && e.Op == "match")
	case ErrInvalid:
		return e.Errno == EINVAL || e.Errno == EOVERFLOW || e.Errno == ERANGE || e.Errno == EEXIST
	case ErrNotFound:
		return e.Errno == ENOENT && e.Op != "match"
	}
	return false
}

func trimNL(s string) string {
	for len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	return s
}
