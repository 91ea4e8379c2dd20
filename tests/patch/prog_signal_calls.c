/*
 * prog_signal_calls.c - instrumented calls from a signal handler
 * (check_signal_calls.py): a 200 us SIGALRM whose handler calls tick(),
 * which calls work(), while main calls work() 200,000 times; prints how
 * many times each ran.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
static volatile sig_atomic_t handled;
__attribute__((noinline)) int work(int x){ volatile int s=0; for(int i=0;i<2000;i++) s+=i*x; return s; }
__attribute__((noinline)) void tick(int x){ work(x); }
static void on_alarm(int sig){ (void)sig; handled++; tick(1); }
int main(void){
  struct sigaction sa; memset(&sa,0,sizeof sa); sa.sa_handler=on_alarm; sigaction(SIGALRM,&sa,0);
  struct itimerval it = {{0,200},{0,200}}; setitimer(ITIMER_REAL,&it,0);
  long n=0; for (int i=0;i<200000;i++){ work(i); n++; }
  it.it_value.tv_usec=0; it.it_interval.tv_usec=0; setitimer(ITIMER_REAL,&it,0);
  printf("main work %ld, handler %d\n", n, (int)handled); return 0; }
