/*
 * _rows.c - the scope_reader module's one compiled helper: makes the
 * per-call dicts of events() and call_stack() from the numpy columns the C
 * reader filled, without a Python-level loop (issue 30: a dict literal in
 * a comprehension plus tolist() of each column cost ~2.7 us per call on
 * the development machine; made here, one dict costs its allocations).
 *
 * Optional: the module falls back to the pure-Python batches when this
 * extension is not built (no python3-dev) or not found, and gives the same
 * dicts (same keys, order, values and types; tests/python/
 * test_events_batches.py compares both). Plain CPython API, no numpy
 * headers: columns arrive through the buffer protocol.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

enum kind { K_I32, K_I64, K_F64, K_NAMES, K_CONST };

struct column {
    int kind;
    Py_buffer buf;          /* K_I32, K_I64, K_F64, K_NAMES (the indices) */
    int have_buf;
    PyObject *obj;          /* K_NAMES: the list of names; K_CONST: the value */
};

static void release(struct column *c, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        if (c[i].have_buf)
            PyBuffer_Release(&c[i].buf);
}

/* The kind of a 1-d C-contiguous buffer's items, from its struct format
 * and item size; -1 (with an exception) when it is none of int32, int64
 * and float64. */
static int buffer_kind(const Py_buffer *b)
{
    const char *f = b->format ? b->format : "B";
    if (*f == '<' || *f == '=' || *f == '@')
        f++;
    if (b->ndim != 1) {
        PyErr_SetString(PyExc_ValueError, "_rows: a column must be one-dimensional");
        return -1;
    }
    if (f[1] == '\0' && (f[0] == 'i' || f[0] == 'l' || f[0] == 'q') && b->itemsize == 4)
        return K_I32;
    if (f[1] == '\0' && (f[0] == 'l' || f[0] == 'q') && b->itemsize == 8)
        return K_I64;
    if (f[1] == '\0' && f[0] == 'd' && b->itemsize == 8)
        return K_F64;
    PyErr_Format(PyExc_ValueError, "_rows: a column of format '%s' (%zd bytes): int32, "
                 "int64 or float64 only", f, b->itemsize);
    return -1;
}

/* Fills c from one column argument: a buffer (int32, int64, float64), a
 * (names, int32 indices) tuple, or any other object (the same value in
 * every row). Returns the column's length, -2 for a constant, -1 on error. */
static Py_ssize_t take_column(PyObject *arg, struct column *c)
{
    memset(c, 0, sizeof *c);
    if (PyTuple_Check(arg) && PyTuple_GET_SIZE(arg) == 2 &&
        PyList_Check(PyTuple_GET_ITEM(arg, 0))) {
        c->kind = K_NAMES;
        c->obj = PyTuple_GET_ITEM(arg, 0);
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(arg, 1), &c->buf, PyBUF_FORMAT | PyBUF_ND |
                               PyBUF_C_CONTIGUOUS) < 0)
            return -1;
        c->have_buf = 1;
        if (buffer_kind(&c->buf) != K_I32) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "_rows: name indices must be int32");
            return -1;
        }
        Py_ssize_t n = c->buf.shape[0];
        const int32_t *idx = c->buf.buf;
        Py_ssize_t names = PyList_GET_SIZE(c->obj);
        for (Py_ssize_t i = 0; i < n; i++)
            if (idx[i] < 0 || idx[i] >= names) {
                PyErr_Format(PyExc_IndexError, "_rows: name index %d of %zd names",
                             (int)idx[i], names);
                return -1;
            }
        return n;
    }
    if (PyObject_CheckBuffer(arg)) {
        if (PyObject_GetBuffer(arg, &c->buf, PyBUF_FORMAT | PyBUF_ND | PyBUF_C_CONTIGUOUS) < 0)
            return -1;
        c->have_buf = 1;
        if ((c->kind = buffer_kind(&c->buf)) < 0)
            return -1;
        return c->buf.shape[0];
    }
    c->kind = K_CONST;
    c->obj = arg;
    return -2;
}

/* A new reference to row i's value of column c, or NULL. */
static inline PyObject *value(const struct column *c, Py_ssize_t i)
{
    PyObject *v;
    switch (c->kind) {
    case K_I32:
        return PyLong_FromLong(((const int32_t *)c->buf.buf)[i]);
    case K_I64:
        return PyLong_FromLongLong(((const int64_t *)c->buf.buf)[i]);
    case K_F64:
        return PyFloat_FromDouble(((const double *)c->buf.buf)[i]);
    case K_NAMES:
        v = PyList_GET_ITEM(c->obj, ((const int32_t *)c->buf.buf)[i]);
        break;
    default:
        v = c->obj;
        break;
    }
    Py_INCREF(v);
    return v;
}

/* dicts(keys, columns) -> [dict per row]: keys a tuple of str, columns a
 * sequence of as many column arguments (see take_column), of one length.
 * Cost: one dict and its number objects per row; nothing else kept. */
static PyObject *dicts(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *keys, *cols;
    if (!PyArg_ParseTuple(args, "O!O:dicts", &PyTuple_Type, &keys, &cols))
        return NULL;
    PyObject *seq = PySequence_Fast(cols, "_rows: columns must be a sequence");
    if (!seq)
        return NULL;
    Py_ssize_t k = PyTuple_GET_SIZE(keys);
    if (PySequence_Fast_GET_SIZE(seq) != k) {
        Py_DECREF(seq);
        return PyErr_Format(PyExc_ValueError, "_rows: %zd keys but %zd columns", k,
                            PySequence_Fast_GET_SIZE(seq));
    }
    struct column *c = PyMem_Calloc((size_t)(k ? k : 1), sizeof *c);
    PyObject *out = NULL;
    if (!c) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    Py_ssize_t n = -1, taken = 0;
    for (; taken < k; taken++) {
        Py_ssize_t len = take_column(PySequence_Fast_GET_ITEM(seq, taken), &c[taken]);
        if (len == -1) {
            taken++;
            goto done;
        }
        if (len >= 0 && n >= 0 && len != n) {
            taken++;
            PyErr_Format(PyExc_ValueError, "_rows: columns of %zd and %zd rows", n, len);
            goto done;
        }
        if (len >= 0)
            n = len;
    }
    if (n < 0)
        n = 0;
    for (Py_ssize_t j = 0; j < k; j++) {
        PyObject *key = PyTuple_GET_ITEM(keys, j);
        if (!PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "_rows: keys must be str");
            goto done;
        }
        if (PyObject_Hash(key) == -1)   /* cached: the inserts reuse it */
            goto done;
    }
    if (!(out = PyList_New(n)))
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        /* not _PyDict_NewPresized: its table takes any key (24-byte
         * entries), PyDict_New's one of str keys only (16), as a dict
         * literal's: 272 bytes instead of 352 per dict of 9 keys, and
         * fresh memory is what a big list of dicts mostly costs */
        PyObject *d = PyDict_New();
        if (!d)
            goto fail;
        PyList_SET_ITEM(out, i, d);
        for (Py_ssize_t j = 0; j < k; j++) {
            PyObject *v = value(&c[j], i);
            if (!v || PyDict_SetItem(d, PyTuple_GET_ITEM(keys, j), v) < 0) {
                Py_XDECREF(v);
                goto fail;
            }
            Py_DECREF(v);
        }
    }
    goto done;
fail:
    Py_CLEAR(out);
done:
    release(c, taken);
    PyMem_Free(c);
    Py_DECREF(seq);
    return out;
}

static PyMethodDef methods[] = {
    { "dicts", dicts, METH_VARARGS,
      "dicts(keys, columns) -> list of dicts, one per row: keys a tuple of str; each "
      "column an int32/int64/float64 buffer, a (names list, int32 indices) tuple, or a "
      "value for every row" },
    { NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_rows", "scope_reader's per-call dicts from columns (_rows.c)",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__rows(void)
{
    return PyModule_Create(&module);
}
