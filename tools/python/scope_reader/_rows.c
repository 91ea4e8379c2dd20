/*
 * _rows.c - the scope_reader module's one compiled helper: makes the
 * per-call dicts of events() and call_stack() from the numpy columns the C
 * reader filled, without a Python-level loop (issue 30: a dict literal in
 * a comprehension plus tolist() of each column cost ~2.7 us per call on
 * the development machine; made here, one dict costs its allocations).
 *
 * A Table holds the columns (their buffers kept for its life) and makes
 * one row's dict on demand: row(i), an iterator over a range of rows (the
 * lazy sequence of dicts.py iterates with it, so a loop that drops each
 * dict reuses the memory of the one before instead of touching fresh
 * pages, which this VM zeroes at ~2.7 s/GB), or a list of a range.
 *
 * Optional: the module falls back to pure-Python batches when this
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
    PyObject *obj;          /* K_NAMES: the list of names; K_CONST: the value
                             * (a new reference, so the Table may outlive
                             * the argument) */
};

static void release(struct column *c, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        if (c[i].have_buf)
            PyBuffer_Release(&c[i].buf);
        Py_CLEAR(c[i].obj);
    }
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

/* A (names list, int32 indices) column: every index checked once here, so
 * making a row needs no check. */
static Py_ssize_t take_names(PyObject *arg, struct column *c)
{
    c->kind = K_NAMES;
    c->obj = Py_NewRef(PyTuple_GET_ITEM(arg, 0));
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

/* Fills c from one column argument: a buffer (int32, int64, float64), a
 * (names, int32 indices) tuple, or any other object (the same value in
 * every row). Returns the column's length, -2 for a constant, -1 on error. */
static Py_ssize_t take_column(PyObject *arg, struct column *c)
{
    memset(c, 0, sizeof *c);
    if (PyTuple_Check(arg) && PyTuple_GET_SIZE(arg) == 2 &&
        PyList_Check(PyTuple_GET_ITEM(arg, 0)))
        return take_names(arg, c);
    if (PyObject_CheckBuffer(arg)) {
        if (PyObject_GetBuffer(arg, &c->buf, PyBUF_FORMAT | PyBUF_ND | PyBUF_C_CONTIGUOUS) < 0)
            return -1;
        c->have_buf = 1;
        if ((c->kind = buffer_kind(&c->buf)) < 0)
            return -1;
        return c->buf.shape[0];
    }
    c->kind = K_CONST;
    c->obj = Py_NewRef(arg);
    return -2;
}

/* A new reference to row i's value of column c, or NULL. */
static inline PyObject *value(const struct column *c, Py_ssize_t i)
{
    switch (c->kind) {
    case K_I32:
        return PyLong_FromLong(((const int32_t *)c->buf.buf)[i]);
    case K_I64:
        return PyLong_FromLongLong(((const int64_t *)c->buf.buf)[i]);
    case K_F64:
        return PyFloat_FromDouble(((const double *)c->buf.buf)[i]);
    case K_NAMES:
        return Py_NewRef(PyList_GET_ITEM(c->obj, ((const int32_t *)c->buf.buf)[i]));
    default:
        return Py_NewRef(c->obj);
    }
}

typedef struct {
    PyObject_HEAD
    Py_ssize_t n, k;        /* rows, keys */
    PyObject *keys;         /* tuple of k str */
    PyObject *shape;        /* a dict of every key (None values), copied per row */
    struct column *c;       /* k columns, buffers held */
} Table;

typedef struct {
    PyObject_HEAD
    Table *t;
    Py_ssize_t next, left, step;
    PyObject *last[2];      /* the dicts handed out last, or NULL */
    int slot;               /* the one of them to use next */
} RowIter;

static PyTypeObject TableType, RowIterType;

/* Puts row i's values into d, whose keys are the table's. 0 or -1. */
static int fill_row(const Table *t, PyObject *d, Py_ssize_t i)
{
    for (Py_ssize_t j = 0; j < t->k; j++) {
        PyObject *v = value(&t->c[j], i);
        if (!v || PyDict_SetItem(d, PyTuple_GET_ITEM(t->keys, j), v) < 0) {
            Py_XDECREF(v);
            return -1;
        }
        Py_DECREF(v);
    }
    return 0;
}

/* Row i's dict (a new reference), or NULL. A copy of `shape` then its
 * values replaced: CPython copies a dict of str keys with one memcpy of
 * its key table, where inserting the keys one by one into a new dict
 * grows (and rehashes) the table once on the way to 9 keys. The values
 * are numbers and str, so the dict stays untracked by the cycle GC. */
static PyObject *make_row(const Table *t, Py_ssize_t i)
{
    PyObject *d = PyDict_Copy(t->shape);
    if (d && fill_row(t, d, i) < 0)
        Py_CLEAR(d);
    return d;
}

/* Whether d still has exactly the table's keys in the table's order (the
 * same str objects): a caller may have changed a dict it was given. */
static int same_keys(const Table *t, PyObject *d)
{
    if (PyDict_GET_SIZE(d) != t->k)
        return 0;
    Py_ssize_t pos = 0, j = 0;
    PyObject *key, *v;
    while (PyDict_Next(d, &pos, &key, &v))
        if (key != PyTuple_GET_ITEM(t->keys, j++))
            return 0;
    return 1;
}

/* The columns of a Table (or of dicts()): every column taken, one length;
 * the keys str. 0, or -1 with an exception (what was taken is released). */
static int table_fill(Table *t, PyObject *keys, PyObject *cols)
{
    PyObject *seq = PySequence_Fast(cols, "_rows: columns must be a sequence");
    if (!seq)
        return -1;
    Py_ssize_t k = PyTuple_GET_SIZE(keys), n = -1, taken = 0;
    int rc = -1;
    if (PySequence_Fast_GET_SIZE(seq) != k) {
        PyErr_Format(PyExc_ValueError, "_rows: %zd keys but %zd columns", k,
                     PySequence_Fast_GET_SIZE(seq));
        goto done;
    }
    if (!(t->c = PyMem_Calloc((size_t)(k ? k : 1), sizeof *t->c))) {
        PyErr_NoMemory();
        goto done;
    }
    for (; taken < k; taken++) {
        Py_ssize_t len = take_column(PySequence_Fast_GET_ITEM(seq, taken), &t->c[taken]);
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
    if (!(t->shape = PyDict_New()))
        goto done;
    for (Py_ssize_t j = 0; j < k; j++) {
        PyObject *key = PyTuple_GET_ITEM(keys, j);
        if (!PyUnicode_Check(key)) {
            PyErr_SetString(PyExc_TypeError, "_rows: keys must be str");
            goto done;
        }
        if (PyDict_SetItem(t->shape, key, Py_None) < 0)   /* caches the hash */
            goto done;
    }
    t->n = n < 0 ? 0 : n;
    t->k = k;
    t->keys = Py_NewRef(keys);
    rc = 0;
done:
    if (rc < 0 && t->c) {
        release(t->c, taken);
        PyMem_Free(t->c);
        t->c = NULL;
        Py_CLEAR(t->shape);
    }
    Py_DECREF(seq);
    return rc;
}

static void table_dealloc(Table *t)
{
    if (t->c) {
        release(t->c, t->k);
        PyMem_Free(t->c);
    }
    Py_XDECREF(t->keys);
    Py_XDECREF(t->shape);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static PyObject *table_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *keys, *cols;
    if (kw && PyDict_GET_SIZE(kw)) {
        PyErr_SetString(PyExc_TypeError, "_rows.Table takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O!O:Table", &PyTuple_Type, &keys, &cols))
        return NULL;
    Table *t = (Table *)type->tp_alloc(type, 0);
    if (t && table_fill(t, keys, cols) < 0)
        Py_CLEAR(t);
    return (PyObject *)t;
}

static Py_ssize_t table_len(Table *t)
{
    return t->n;
}

static PyObject *table_row(Table *t, PyObject *arg)
{
    Py_ssize_t i = PyNumber_AsSsize_t(arg, PyExc_IndexError);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i >= t->n)
        return PyErr_Format(PyExc_IndexError, "_rows: row %zd of %zd", i, t->n);
    return make_row(t, i);
}

/* (start, stop, step) of a range of rows, as Python's range gives them
 * (slice.indices()): the count of rows it names, -1 when a row falls
 * outside the table. */
static Py_ssize_t range_rows(const Table *t, PyObject *args, Py_ssize_t *start,
                             Py_ssize_t *step)
{
    Py_ssize_t stop;
    if (!PyArg_ParseTuple(args, "nnn", start, &stop, step))
        return -1;
    if (*step == 0) {
        PyErr_SetString(PyExc_ValueError, "_rows: step 0");
        return -1;
    }
    Py_ssize_t count = *step > 0 ? (stop - *start + *step - 1) / *step
                                 : (*start - stop - *step - 1) / -*step;
    if (count <= 0)
        return 0;
    Py_ssize_t last = *start + (count - 1) * *step;
    if (*start < 0 || *start >= t->n || last < 0 || last >= t->n) {
        PyErr_Format(PyExc_IndexError, "_rows: rows %zd..%zd of %zd", *start, last, t->n);
        return -1;
    }
    return count;
}

/* iter(start, stop, step) -> an iterator making the rows' dicts one at a
 * time: nothing is kept but the dict being handed out. */
static PyObject *table_iter_range(Table *t, PyObject *args)
{
    Py_ssize_t start, step, count = range_rows(t, args, &start, &step);
    if (count < 0)
        return NULL;
    RowIter *it = PyObject_New(RowIter, &RowIterType);
    if (!it)
        return NULL;
    it->t = (Table *)Py_NewRef(t);
    it->next = start;
    it->left = count;
    it->step = step;
    it->last[0] = it->last[1] = NULL;
    it->slot = 0;
    return (PyObject *)it;
}

static PyObject *table_iter(Table *t)
{
    PyObject *args = Py_BuildValue("(nnn)", (Py_ssize_t)0, t->n, (Py_ssize_t)1);
    if (!args)
        return NULL;
    PyObject *it = table_iter_range(t, args);
    Py_DECREF(args);
    return it;
}

/* list(start, stop, step) -> the rows' dicts as a list. */
static PyObject *table_list(Table *t, PyObject *args)
{
    Py_ssize_t start, step, count = range_rows(t, args, &start, &step);
    if (count < 0)
        return NULL;
    PyObject *out = PyList_New(count);
    if (!out)
        return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *d = make_row(t, start + i * step);
        if (!d) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, d);
    }
    return out;
}

static void rowiter_dealloc(RowIter *it)
{
    Py_XDECREF(it->t);
    Py_XDECREF(it->last[0]);
    Py_XDECREF(it->last[1]);
    PyObject_Free(it);
}

/* The next row's dict. When nobody but the iterator holds a dict it
 * handed out before (the loop dropped it) and its keys are untouched,
 * that dict is filled again instead of a new one made, as CPython's zip()
 * reuses its result tuple: no dict, key table or free per row, which is
 * most of what a row costs. Two are kept in turn, since `for call in
 * rows:` still holds the last one while asking for the next. Nothing
 * outside can see the reuse: nobody else holds a reused dict. */
static PyObject *rowiter_next(RowIter *it)
{
    PyObject **slot = &it->last[it->slot];
    if (it->left <= 0) {
        Py_CLEAR(it->last[0]);
        Py_CLEAR(it->last[1]);
        return NULL;        /* StopIteration, no exception set */
    }
    PyObject *d = *slot;
    if (d && Py_REFCNT(d) == 1 && same_keys(it->t, d)) {
        if (fill_row(it->t, d, it->next) < 0) {
            Py_CLEAR(*slot);
            return NULL;
        }
    } else {
        Py_CLEAR(*slot);
        if (!(d = make_row(it->t, it->next)))
            return NULL;
        *slot = d;
    }
    it->slot ^= 1;
    it->next += it->step;
    it->left--;
    return Py_NewRef(d);
}

static PyObject *rowiter_length_hint(RowIter *it, PyObject *unused)
{
    (void)unused;
    return PyLong_FromSsize_t(it->left > 0 ? it->left : 0);
}

/* dicts(keys, columns) -> [dict per row]: keys a tuple of str, columns a
 * sequence of as many column arguments (see take_column), of one length.
 * A Table's whole list, for callers that want every dict at once. */
static PyObject *dicts(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *t = table_new(&TableType, args, NULL);
    if (!t)
        return NULL;
    PyObject *range = Py_BuildValue("(nnn)", (Py_ssize_t)0, ((Table *)t)->n, (Py_ssize_t)1);
    PyObject *out = range ? table_list((Table *)t, range) : NULL;
    Py_XDECREF(range);
    Py_DECREF(t);
    return out;
}

static PyMethodDef table_methods[] = {
    { "row", (PyCFunction)table_row, METH_O, "row(i) -> row i's dict" },
    { "iter", (PyCFunction)table_iter_range, METH_VARARGS,
      "iter(start, stop, step) -> iterator of those rows' dicts, made one at a time" },
    { "list", (PyCFunction)table_list, METH_VARARGS,
      "list(start, stop, step) -> list of those rows' dicts" },
    { NULL, NULL, 0, NULL },
};

static PySequenceMethods table_as_sequence = { .sq_length = (lenfunc)table_len };

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "_rows.Table",
    .tp_basicsize = sizeof(Table),
    .tp_dealloc = (destructor)table_dealloc,
    .tp_as_sequence = &table_as_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Table(keys, columns): per-row dicts of columns (an int32/int64/float64 "
              "buffer, a (names list, int32 indices) tuple, or one value for every row)",
    .tp_iter = (getiterfunc)table_iter,
    .tp_methods = table_methods,
    .tp_new = table_new,
};

static PyMethodDef rowiter_methods[] = {
    { "__length_hint__", (PyCFunction)rowiter_length_hint, METH_NOARGS, NULL },
    { NULL, NULL, 0, NULL },
};

static PyTypeObject RowIterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "_rows.RowIter",
    .tp_basicsize = sizeof(RowIter),
    .tp_dealloc = (destructor)rowiter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)rowiter_next,
    .tp_methods = rowiter_methods,
};

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
    if (PyType_Ready(&TableType) < 0 || PyType_Ready(&RowIterType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddObjectRef(m, "Table", (PyObject *)&TableType) < 0)
        Py_CLEAR(m);
    return m;
}
