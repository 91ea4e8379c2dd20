/*
 * bench_tls.c - a shared object with one thread-local counter reached
 * through each TLS access model, for bench_ablation: what a preloaded
 * library pays per access with global-dynamic (__tls_get_addr) against
 * initial-exec (one %fs-relative load), the model preload/engine/shadow_stack.c
 * and runtime/recorder_hot.c use.
 */
static __thread long gd_counter __attribute__((tls_model("global-dynamic")));
static __thread long ie_counter __attribute__((tls_model("initial-exec")));

/* Each adds x to its counter and returns it. */
__attribute__((visibility("default"), noinline)) long bench_tls_gd(long x)
{
    return gd_counter += x;
}

__attribute__((visibility("default"), noinline)) long bench_tls_ie(long x)
{
    return ie_counter += x;
}
