// What a student's uid left on the host after its jail ended: the grading tests assert that
// all of these are zero once a build or run is over.
#pragma once
#include <sys/types.h>

namespace grading_test {

int processes_of(uid_t uid);  // processes still alive anywhere on the machine
int sysv_objects_of(uid_t uid);  // System V segments, semaphores and queues
int posix_queues_of(uid_t uid);  // POSIX message queues in the host's IPC namespace
int scratch_files_of(uid_t uid);  // files in the host's /tmp, /var/tmp and /dev/shm

}  // namespace grading_test
