/* A static i386 test program for the x86lab Linux guest: several threads, each with
 * its own copy of __thread variables (glibc TLS through %gs), compute a checksum.
 * Each thread adds its index into its private counter 1000 times; the main thread
 * checks that no thread saw another's copy and prints one line with the checksum. */
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define ROUNDS 1000

static __thread unsigned counter = 7;     /* initialised TLS (.tdata) */
static __thread unsigned scratch[16];     /* zeroed TLS (.tbss) */
static unsigned results[THREADS];

static void* worker(void* arg) {
  unsigned index = (unsigned)(unsigned long)arg;
  for (unsigned i = 0; i < ROUNDS; ++i) {
    counter += index + 1;
    scratch[i % 16] ^= counter;
  }
  unsigned mix = 0;
  for (unsigned i = 0; i < 16; ++i) mix = mix * 31u + scratch[i];
  results[index] = counter ^ mix;
  return NULL;
}

int main(void) {
  pthread_t threads[THREADS];
  for (unsigned i = 0; i < THREADS; ++i)
    if (pthread_create(&threads[i], NULL, worker, (void*)(unsigned long)i) != 0) {
      printf("tls_test: pthread_create failed\n");
      return 1;
    }
  unsigned checksum = 0;
  for (unsigned i = 0; i < THREADS; ++i) {
    pthread_join(threads[i], NULL);
    checksum = checksum * 2654435761u + results[i];
  }
  /* The main thread's copy is untouched by the workers. */
  printf("tls_test: threads=%d main_counter=%u checksum=%08x\n", THREADS, counter, checksum);
  return counter == 7 ? 0 : 1;
}
