/* static_link.c - linked into the static primbench only (-DPRIMBENCH_STATIC=ON,
 * make static; docs/install.md, "A static binary").
 *
 * libudev: Debian's libhwloc.a references five libudev functions from its
 * Linux backend (nm: topology-linux.o), and Debian ships libudev only as a
 * shared library. hwloc calls udev_new() when a topology is loaded from
 * the real root file system, and uses the context only to read the
 * vendor, model, revision, serial and type of block devices, which exist
 * in a topology only when its I/O objects are kept (primbench keeps none:
 * hwloc's default filter for I/O types). With udev_new() returning NULL,
 * hwloc takes its own fallback, which reads the same properties from
 * /run/udev/data/b<major>:<minor> (hwloc 2.9, topology-linux.c). The
 * other four are never called without a context; they return nothing.
 *
 * Plugins: Debian's libhwloc.a is built with plugin support and, at every
 * topology load, dlopen()s each hwloc_*.so in its plugin directory
 * (libhwloc-plugins: PCI, OpenCL, CUDA, X11 GPUs, libxml2 XML). Those
 * plugins link libhwloc.so.15 and the shared libc: loaded into a static
 * program they would bring a second hwloc and a second libc with it.
 * The static link wraps dlopen (-Wl,--wrap=dlopen: only hwloc calls it
 * here), so no plugin is ever loaded; none of them finds anything
 * primbench reads (CPUs, caches, NUMA nodes: the built-in linux and x86
 * backends). */
#include <stddef.h>

struct udev;
struct udev_device;

struct udev *udev_new(void);
struct udev *udev_unref(struct udev *udev);
struct udev_device *udev_device_new_from_subsystem_sysname(struct udev *udev, const char *subsystem,
                                                           const char *sysname);
const char *udev_device_get_property_value(struct udev_device *dev, const char *key);
struct udev_device *udev_device_unref(struct udev_device *dev);
void *__wrap_dlopen(const char *file, int mode);
char *__wrap_dlerror(void);

struct udev *udev_new(void)
{
	return NULL;
}

struct udev *udev_unref(struct udev *udev)
{
	(void)udev;
	return NULL;
}

struct udev_device *udev_device_new_from_subsystem_sysname(struct udev *udev, const char *subsystem,
                                                           const char *sysname)
{
	(void)udev;
	(void)subsystem;
	(void)sysname;
	return NULL;
}

const char *udev_device_get_property_value(struct udev_device *dev, const char *key)
{
	(void)dev;
	(void)key;
	return NULL;
}

struct udev_device *udev_device_unref(struct udev_device *dev)
{
	(void)dev;
	return NULL;
}

void *__wrap_dlopen(const char *file, int mode)
{
	(void)file;
	(void)mode;
	return NULL;
}

/* What hwloc prints for a refused plugin under HWLOC_PLUGINS_VERBOSE=1. */
char *__wrap_dlerror(void)
{
	static char why[] = "plugins are not loaded by a static primbench";
	return why;
}
