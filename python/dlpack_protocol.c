/*
 * dlpack_protocol.c — the producer side of the Python DLPack protocol:
 * Buffer.__dlpack__, __dlpack_device__ and release_to_dlpack, and the capsule
 * destructors.
 *
 * A capsule named "dltensor_versioned" (or legacy "dltensor") owns its
 * tensor until a consumer renames it to "used_dltensor_versioned" ("used_
 * dltensor"); only an unconsumed capsule calls the tensor's deleter when it
 * dies. The library's deleters do not touch Python, so they run without the
 * GIL.
 */
#include "pjdl_py.h"

static const char versioned_name[] = "dltensor_versioned";
static const char legacy_name[] = "dltensor";

/* Calls the deleter of a tensor, versioned or legacy, without the GIL. */
static void delete_tensor(void *tensor, int versioned) {
    if (versioned) {
        DLManagedTensorVersioned *t = tensor;
        if (t->deleter != NULL)
            PJPY_NOGIL(t->deleter(t));
    } else {
        DLManagedTensor *t = tensor;
        if (t->deleter != NULL)
            PJPY_NOGIL(t->deleter(t));
    }
}

static void delete_versioned(void *tensor) {
    delete_tensor(tensor, 1);
}

static void delete_legacy(void *tensor) {
    delete_tensor(tensor, 0);
}

/* A capsule dies, maybe while an exception is being raised: the tensor's
 * deleter must neither lose that exception nor leave one of its own. */
static void capsule_destructor(PyObject *capsule, const char *name, void (*delete)(void *)) {
    if (!PyCapsule_IsValid(capsule, name))
        return; /* consumed: the consumer owns the tensor */
    pjpy_run_keeping_error(delete, PyCapsule_GetPointer(capsule, name));
}

static void capsule_versioned_destructor(PyObject *capsule) {
    capsule_destructor(capsule, versioned_name, delete_versioned);
}

static void capsule_legacy_destructor(PyObject *capsule) {
    capsule_destructor(capsule, legacy_name, delete_legacy);
}

/* The keyword arguments of __dlpack__ and release_to_dlpack, parsed by hand
 * from a vectorcall: consumers call these on every exchange, and
 * PyArg_ParseTupleAndKeywords (with its tuple and dict) costs more than the
 * export itself. 0 on success, -1 with TypeError set. */
enum { ARG_STREAM, ARG_MAX_VERSION, ARG_DL_DEVICE, ARG_COPY, ARG_COUNT };
static const char *const arg_names[ARG_COUNT] = {"stream", "max_version", "dl_device", "copy"};

static int parse_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *fname,
                      PyObject *out[ARG_COUNT]) {
    for (int i = 0; i < ARG_COUNT; i++)
        out[i] = Py_None;
    if (nargs != 0) {
        PyErr_Format(PyExc_TypeError, "%s() takes no positional arguments", fname);
        return -1;
    }
    if (kwnames == NULL)
        return 0;
    /* Keyword names at a call site are interned strings, so comparing with
     * interned copies of ours finds them by address; comparing text is the
     * fallback (it cost ~15% of numpy.from_dlpack(buf) when it was the only
     * way). */
    static PyObject *interned[ARG_COUNT];
    if (interned[0] == NULL) {
        for (int i = 0; i < ARG_COUNT; i++) {
            PyObject *name = PyUnicode_InternFromString(arg_names[i]);
            if (name == NULL)
                return -1;
            interned[i] = name; /* kept for the life of the process */
        }
    }
    Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int found = -1;
        for (int i = 0; i < ARG_COUNT && found < 0; i++)
            if (key == interned[i])
                found = i;
        for (int i = 0; i < ARG_COUNT && found < 0; i++)
            if (PyUnicode_CompareWithASCIIString(key, arg_names[i]) == 0)
                found = i;
        if (found < 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname,
                         key);
            return -1;
        }
        /* A vectorcall never repeats a keyword name. */
        out[found] = args[k];
    }
    return 0;
}

/* Whether exporting with `opts` from `self` is known not to block: the
 * buffer was ready and exported without a copy before, and these options
 * (no stream, no dl_device, no forced copy, shared) can only do the same.
 * Then the GIL is kept across the call, which saves releasing and
 * re-acquiring it. */
static int export_known_fast(const pjpy_buffer *self, const pjdl_export_options *opts) {
    return self->export_fast && opts->mode == PJDL_EXPORT_SHARE && !opts->has_stream &&
           !opts->has_dl_device && opts->copy != PJDL_COPY_ALWAYS;
}

/* After a successful plain export (as in export_known_fast, but not yet
 * known): marks the buffer fast when the tensor shares the buffer's memory,
 * i.e. it was ready (the export waited) and no copy was made. */
static void note_export(pjpy_buffer *self, const pjdl_export_options *opts, void *data) {
    if (self->export_fast || opts->mode != PJDL_EXPORT_SHARE || opts->has_stream ||
        opts->has_dl_device || opts->copy == PJDL_COPY_ALWAYS)
        return;
    void *ptr = NULL;
    if (pjdl_buffer_data_pointer(self->buffer, &ptr) == PJDL_OK && ptr == data)
        self->export_fast = 1;
}

/* Whether this export is copy=True of a buffer whose memory the host cannot
 * read, with no other dl_device asked for. The library copies only to the
 * host, but the array API wants the copy on the buffer's own device when
 * dl_device is not given (a consumer reads the device from the tensor, so a
 * host copy would silently move the data). */
static int wants_device_copy(pjdl_buffer *buffer, const pjdl_export_options *opts) {
    if (opts->copy != PJDL_COPY_ALWAYS ||
        (opts->mode != PJDL_EXPORT_SHARE && opts->mode != PJDL_EXPORT_TRANSFER))
        return 0;
    DLDevice own;
    if (pjdl_buffer_dl_device(buffer, &own) != PJDL_OK)
        return 0;
    if (pjdl_dl_device_type_host_reachable(own.device_type))
        return 0;
    return !opts->has_dl_device || pjdl_dl_device_same(opts->dl_device, own);
}

/* A copy on the buffer's own device: a host copy imported back to the same
 * device and memory (the library has no device-to-device copy), then shared.
 * A transfer (release_to_dlpack) deletes the buffer once the copy is handed
 * out, and leaves it untouched when anything fails. Exactly one of vout /
 * lout is set. Touches no Python object. */
static pjdl_code export_device_copy(pjdl_buffer *buffer, const pjdl_export_options *opts,
                                    DLManagedTensorVersioned **vout, DLManagedTensor **lout) {
    DLDevice own_dl;
    pjdl_code own_rc = pjdl_buffer_dl_device(buffer, &own_dl);
    if (own_rc != PJDL_OK)
        return own_rc;
    pjdl_export_options host_opts = PJDL_EXPORT_OPTIONS_INIT;
    host_opts.copy = PJDL_COPY_ALWAYS;
    DLManagedTensorVersioned *host = NULL;
    pjdl_code rc = pjdl_buffer_export(buffer, &host_opts, &host);
    if (rc != PJDL_OK)
        return rc;
    pjdl_import_options in = PJDL_IMPORT_OPTIONS_INIT;
    in.copy = PJDL_COPY_ALWAYS;
    in.device = pjdl_buffer_device(buffer);
    in.memory = pjdl_buffer_memory(buffer);
    pjdl_client *client = pjdl_buffer_client(buffer);
    pjdl_buffer *copy = NULL;
    rc = pjdl_import(&client, 1, host, &in, &copy);
    if (rc != PJDL_OK) {
        host->deleter(host); /* a failed import leaves the tensor to us */
        return rc;
    }
    pjdl_export_options out = *opts;
    out.mode = PJDL_EXPORT_SHARE;
    out.copy = PJDL_COPY_IF_NEEDED;
    out.has_dl_device = true; /* the copy's device: no host copy of it */
    out.dl_device = own_dl;
    if (vout != NULL) {
        rc = pjdl_buffer_export(copy, &out, vout);
        if (rc == PJDL_OK)
            (*vout)->flags |= DLPACK_FLAG_BITMASK_IS_COPIED;
    } else {
        rc = pjdl_buffer_export_legacy(copy, &out, lout);
    }
    /* The export pins the copy; the handle is not needed any more. */
    pjdl_buffer_release(copy);
    if (rc == PJDL_OK && opts->mode == PJDL_EXPORT_TRANSFER)
        pjdl_buffer_delete(buffer);
    return rc;
}

/* The stream values the array API gives a meaning to, by device type:
 * -1 (no synchronization) anywhere; on CUDA 1 (legacy default) and 2 (per
 * thread default) and pointers, 0 being ambiguous and refused; on ROCm 0
 * (default) and pointers, 1 and 2 being CUDA's. Anything below -1 is never
 * a stream. What a stream means beyond that is the plugin's to check. */
static int check_stream_value(pjdl_buffer *buffer, int64_t s, const char *fname) {
    DLDevice own = {kDLCPU, 0};
    if (pjdl_buffer_dl_device(buffer, &own) != PJDL_OK)
        own.device_type = kDLExtDev; /* unknown: only the universal rule */
    const char *why = NULL;
    if (s < -1)
        why = "is not a stream (the array API allows -1 and up)";
    else if (own.device_type == kDLCUDA && s == 0)
        why = "is ambiguous on CUDA: pass 1 (legacy default stream) or 2 (per-thread default)";
    else if (own.device_type == kDLROCM && (s == 1 || s == 2))
        why = "is a CUDA default stream; on ROCm the default stream is 0";
    if (why == NULL)
        return 0;
    PyErr_Format(pjpy_dlpack_error, "%s: stream=%lld %s", fname, (long long)s, why);
    return -1;
}

/* Reads copy=, max_version and dl_device into *opts and *versioned (whether
 * the consumer takes a versioned tensor), refusing a dl_device other than the
 * buffer's under copy=False. 0, or -1 with an exception set. */
static int parse_export_options(PyObject *const a[ARG_COUNT], pjdl_buffer *buffer,
                                const char *fname, pjdl_export_options *opts, int *versioned) {
    if (pjpy_parse_copy(a[ARG_COPY], &opts->copy) < 0)
        return -1;
    *versioned = 0;
    int64_t pair[2];
    if (a[ARG_MAX_VERSION] != Py_None) {
        if (pjpy_version_pair(a[ARG_MAX_VERSION], "max_version", pjpy_dlpack_error, pair) < 0)
            return -1;
        *versioned = pair[0] >= 1;
    }
    if (a[ARG_DL_DEVICE] != Py_None) {
        if (pjpy_int_pair(a[ARG_DL_DEVICE], "dl_device", pjpy_dl_device_range, pjpy_dlpack_error,
                          pair) < 0)
            return -1;
        opts->has_dl_device = true;
        opts->dl_device.device_type = (DLDeviceType)pair[0];
        opts->dl_device.device_id = (int32_t)pair[1];
    }
    if (!opts->has_dl_device || opts->copy != PJDL_COPY_NEVER)
        return 0;
    /* The standard's dl_device text asks for a ValueError, its copy text for
     * a BufferError: DLPackCopyError is both. */
    DLDevice own;
    pjdl_code drc = pjdl_buffer_dl_device(buffer, &own);
    if (drc != PJDL_OK) {
        pjpy_raise_exchange(drc);
        return -1;
    }
    if (!pjdl_dl_device_same(own, opts->dl_device)) {
        PyErr_Format(pjpy_dlpack_copy_error,
                     "%s: dl_device (%d, %d) is not the buffer's (%d, %d) and copy=False", fname,
                     (int)opts->dl_device.device_type, (int)opts->dl_device.device_id,
                     (int)own.device_type, (int)own.device_id);
        return -1;
    }
    return 0;
}

/* Reads stream= into *opts. 0, or -1 with an exception set. A SYCL
 * consumer's dpctl.SyclQueue (dpctl, dpnp) is taken as no stream: the
 * export waits for the buffer's ready event, after which work on any queue
 * sees the data (a queue of another SYCL runtime than the plugin's cannot
 * be ordered otherwise; sycl.c). */
static int parse_export_stream(PyObject *stream, pjdl_buffer *buffer, const char *fname,
                               pjdl_export_options *opts) {
    if (stream == Py_None)
        return 0;
    int queue = PyLong_Check(stream) ? 0 : pjpy_is_sycl_queue(stream);
    if (queue != 0)
        return queue < 0 ? -1 : 0;
    if (!PyLong_Check(stream) && !PyIndex_Check(stream)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: stream must be None, an int (a stream of the buffer's device) or a "
                     "dpctl.SyclQueue, not %.100s",
                     fname, Py_TYPE(stream)->tp_name);
        return -1;
    }
    int64_t s;
    if (pjpy_int_arg(stream, "stream", INTPTR_MIN, INTPTR_MAX, pjpy_dlpack_error, &s) < 0 ||
        check_stream_value(buffer, s, fname) < 0)
        return -1;
    /* -1: the consumer asks for no synchronization. Waiting for the ready
     * event instead is always correct, so that is what happens. */
    if (s != -1) {
        opts->has_stream = true;
        opts->stream = (intptr_t)s;
    }
    return 0;
}

/* The library export, versioned (vout) or legacy (lout), on the buffer's
 * own device when copy=True asks for it. Touches no Python object. */
static pjdl_code export_tensor(pjdl_buffer *buffer, const pjdl_export_options *opts,
                               int device_copy, DLManagedTensorVersioned **vout,
                               DLManagedTensor **lout) {
    if (device_copy)
        return export_device_copy(buffer, opts, vout, lout);
    if (vout != NULL)
        return pjdl_buffer_export(buffer, opts, vout);
    return pjdl_buffer_export_legacy(buffer, opts, lout);
}

/* The options the library is given: the consumer's, with dl_device set to
 * the buffer's own device when none was asked for and the host cannot read
 * that memory. A tensor handed out without dl_device must be on the device
 * __dlpack_device__ names (the array API's contract), so an export that
 * only a host copy could make (a legacy tensor of padded sub-byte
 * elements, a layout strides cannot say) is refused instead of moving the
 * data to the host. */
static pjdl_export_options on_own_device(pjdl_buffer *buffer, const pjdl_export_options *opts) {
    pjdl_export_options pinned = *opts;
    DLDevice own;
    if (!opts->has_dl_device && pjdl_buffer_dl_device(buffer, &own) == PJDL_OK &&
        !pjdl_dl_device_type_host_reachable(own.device_type)) {
        pinned.has_dl_device = true;
        pinned.dl_device = own;
    }
    return pinned;
}

/* export_tensor with the GIL kept when the export is known not to block
 * and released otherwise; exactly one of vout / lout is set. */
static pjdl_code export_from(pjpy_buffer *self, const pjdl_export_options *opts,
                             DLManagedTensorVersioned **vout, DLManagedTensor **lout) {
    int fast = export_known_fast(self, opts);
    int device_copy = !fast && wants_device_copy(self->buffer, opts);
    pjdl_code rc;
    if (fast) {
        rc = export_tensor(self->buffer, opts, 0, vout, lout);
        if (rc == PJDL_OK)
            pjpy_drain_deferred();
        return rc;
    }
    pjdl_export_options pinned = on_own_device(self->buffer, opts);
    PJPY_NOGIL_RC(rc, export_tensor(self->buffer, &pinned, device_copy, vout, lout));
    if (rc == PJDL_OK)
        note_export(self, opts, vout != NULL ? (*vout)->dl_tensor.data : (*lout)->dl_tensor.data);
    return rc;
}

/* The tensor exported as a capsule of the kind the consumer asked for. */
static PyObject *export_capsule(pjpy_buffer *self, const pjdl_export_options *opts, int versioned) {
    DLManagedTensorVersioned *vt = NULL;
    DLManagedTensor *lt = NULL;
    pjdl_code rc = export_from(self, opts, versioned ? &vt : NULL, versioned ? NULL : &lt);
    if (rc != PJDL_OK)
        return pjpy_raise_exchange(rc);
    void *t = versioned ? (void *)vt : (void *)lt;
    PyObject *capsule =
        PyCapsule_New(t, versioned ? versioned_name : legacy_name,
                      versioned ? capsule_versioned_destructor : capsule_legacy_destructor);
    if (capsule == NULL)
        delete_tensor(t, versioned);
    return capsule;
}

static PyObject *export_buffer(PyObject *obj, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames, pjdl_export_mode mode, const char *fname) {
    PyObject *a[ARG_COUNT];
    if (parse_args(args, nargs, kwnames, fname, a) < 0)
        return NULL;
    pjpy_buffer *self = (pjpy_buffer *)obj;
    pjdl_export_options opts = PJDL_EXPORT_OPTIONS_INIT;
    opts.mode = mode;
    int versioned;
    if (parse_export_options(a, self->buffer, fname, &opts, &versioned) < 0 ||
        parse_export_stream(a[ARG_STREAM], self->buffer, fname, &opts) < 0)
        return NULL;
    return export_capsule(self, &opts, versioned);
}

int pjpy_buffer_export_plain(pjpy_buffer *self, DLManagedTensorVersioned **out) {
    pjdl_export_options opts = PJDL_EXPORT_OPTIONS_INIT;
    DLManagedTensorVersioned *t = NULL;
    pjdl_code rc = export_from(self, &opts, &t, NULL);
    if (rc != PJDL_OK) {
        pjpy_raise_exchange(rc);
        return -1;
    }
    *out = t;
    return 0;
}

PyObject *pjpy_buffer_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    return export_buffer(self, args, nargs, kwnames, PJDL_EXPORT_SHARE, "__dlpack__");
}

PyObject *pjpy_buffer_release_to_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                        PyObject *kwnames) {
    return export_buffer(self, args, nargs, kwnames, PJDL_EXPORT_TRANSFER, "release_to_dlpack");
}

PyObject *pjpy_buffer_dlpack_device(PyObject *self, PyObject *unused) {
    (void)unused;
    pjpy_buffer *b = (pjpy_buffer *)self;
    /* A buffer never changes device, but its DLDevice is the platform
     * registry's: the tuple is made once and reused until a registration. */
    if (pjpy_buffer_registry_sync(b) < 0)
        return NULL;
    if (b->dl_device_tuple == NULL) {
        DLDevice dl;
        pjdl_code rc = pjdl_buffer_dl_device(b->buffer, &dl);
        if (rc != PJDL_OK)
            return pjpy_raise_exchange(rc);
        b->dl_device_tuple = pjpy_dl_device_tuple(dl);
        if (b->dl_device_tuple == NULL)
            return NULL;
    }
    return Py_NewRef(b->dl_device_tuple);
}
