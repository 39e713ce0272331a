/*
 * Paddock's AppImage runtime: the executable head of Paddock's AppImage (a type-2 AppImage:
 * this ELF program, "AI\2" at byte 8, then a squashfs image of the AppDir).
 *
 * Running the AppImage mounts the image read-only through FUSE (squashfuse's low-level
 * library, linked in statically with libfuse3 and the decompressors, so the host needs only
 * glibc and, as a normal user, fusermount3), then becomes the AppDir's AppRun (exec, so the
 * launched process is the app itself, with APPIMAGE (this file), APPDIR (the mount), ARGV0
 * and OWD set). A child serves the image and unmounts it when the app ends, however it ends
 * (the kernel tells it: PR_SET_PDEATHSIG), even killed with SIGKILL.
 *
 *   --appimage-offset    print where the image starts (for `unsquashfs -o OFFSET FILE`)
 *   --appimage-version   print this runtime's version
 *
 * Built by scripts/appimage.sh (Debian: libsquashfuse-dev libfuse3-dev, the compressors'
 * -dev packages). Written for Paddock, after the AppImage specification's type-2 layout;
 * the AppImage project's own runtime is downloaded from GitHub, which the build machines
 * here cannot reach.
 */
#define _GNU_SOURCE
#include "config.h"
#include "ll.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define RUNTIME_VERSION "paddock-appimage-runtime 1"

/* Set by SIGTERM (the app ended: PR_SET_PDEATHSIG) in the serving child. */
static struct fuse_session *serving = NULL;

static void app_ended(int sig) {
  (void)sig;
  if (serving) fuse_session_exit(serving);
}

/* Where the image starts: the end of this ELF file (its section headers come last). */
static long image_offset(const char *self) {
  int fd = open(self, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  Elf64_Ehdr h;
  ssize_t n = pread(fd, &h, sizeof h, 0);
  close(fd);
  if (n != (ssize_t)sizeof h || memcmp(h.e_ident, ELFMAG, SELFMAG) != 0 ||
      h.e_ident[EI_CLASS] != ELFCLASS64)
    return -1;
  return (long)(h.e_shoff + (Elf64_Off)h.e_shentsize * h.e_shnum);
}

static int die(const char *what) {
  fprintf(stderr, "Paddock AppImage: %s: %s\n", what, strerror(errno));
  return 127;
}

int main(int argc, char **argv) {
  char self[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len < 0) return die("cannot find its own file");
  self[len] = '\0';
  long offset = image_offset(self);
  if (offset <= 0) {
    fprintf(stderr, "Paddock AppImage: %s is not an AppImage this runtime can read\n", self);
    return 127;
  }
  if (argc > 1 && strcmp(argv[1], "--appimage-offset") == 0) {
    printf("%ld\n", offset);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--appimage-version") == 0) {
    printf("%s\n", RUNTIME_VERSION);
    return 0;
  }

  sqfs_ll *ll = sqfs_ll_open(self, (size_t)offset);
  if (!ll) {
    fprintf(stderr, "Paddock AppImage: cannot read the image inside %s\n", self);
    return 127;
  }
  const char *tmp = getenv("TMPDIR");
  char mountpoint[PATH_MAX];
  snprintf(mountpoint, sizeof mountpoint, "%s/.mount_PaddocXXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(mountpoint)) return die("cannot make a mount point");

  struct fuse_lowlevel_ops ops;
  memset(&ops, 0, sizeof ops);
  ops.getattr = sqfs_ll_op_getattr;
  ops.opendir = sqfs_ll_op_opendir;
  ops.releasedir = sqfs_ll_op_releasedir;
  ops.readdir = sqfs_ll_op_readdir;
  ops.lookup = sqfs_ll_op_lookup;
  ops.open = sqfs_ll_op_open;
  ops.create = sqfs_ll_op_create;
  ops.release = sqfs_ll_op_release;
  ops.read = sqfs_ll_op_read;
  ops.readlink = sqfs_ll_op_readlink;
  ops.listxattr = sqfs_ll_op_listxattr;
  ops.getxattr = sqfs_ll_op_getxattr;
  ops.forget = sqfs_ll_op_forget;
  ops.statfs = stfs_ll_op_statfs;

  char *fuse_argv[] = {argv[0], "-o", "ro,nodev,nosuid", NULL};
  struct fuse_args args = FUSE_ARGS_INIT(3, fuse_argv);
  sqfs_ll_chan ch;
  if (sqfs_ll_mount(&ch, mountpoint, &args, &ops, sizeof ops, ll) != SQFS_OK) {
    fprintf(stderr,
            "Paddock AppImage: cannot mount the image with FUSE at %s (is fuse3 installed, "
            "with /dev/fuse?). Or unpack it: unsquashfs -o %ld %s\n",
            mountpoint, offset, self);
    rmdir(mountpoint);
    return 127;
  }

  char apprun[PATH_MAX + 16], owd[PATH_MAX];
  snprintf(apprun, sizeof apprun, "%s/AppRun", mountpoint);
  if (!getcwd(owd, sizeof owd)) owd[0] = '\0';

  pid_t app = getpid();
  pid_t pid = fork();
  if (pid < 0) return die("cannot serve the image");
  if (pid == 0) {
    /* The server: ends when the app does. Ctrl-C and a hang-up are the app's to answer. */
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    serving = ch.session;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = app_ended;
    sigaction(SIGTERM, &sa, NULL);
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != app) fuse_session_exit(serving);
    else fuse_session_loop(serving);
    fuse_session_unmount(serving);
    fuse_session_destroy(serving);
    rmdir(mountpoint);
    _exit(0);
  }
  /* The app: neither the FUSE device nor the image's file goes with it. */
  close(fuse_session_fd(ch.session));
  close(ll->fs.fd);
  setenv("APPIMAGE", self, 1);
  setenv("APPDIR", mountpoint, 1);
  setenv("ARGV0", argv[0], 1);
  setenv("OWD", owd, 1);
  argv[0] = apprun;
  execv(apprun, argv);
  fprintf(stderr, "Paddock AppImage: cannot run %s: %s\n", apprun, strerror(errno));
  return 127;
}
