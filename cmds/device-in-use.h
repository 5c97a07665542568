/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is a device in use?  Shared by the commands that write a filesystem
 * (implemented with mkfs's device probing, cmds/mkfs/probe.c).
 */
#ifndef GHEE_DEVICE_IN_USE_H
#define GHEE_DEVICE_IN_USE_H

/* 0, or -EBUSY/-errno after printing why @path must not be written */
int device_refuse_in_use(const char *path);

#endif
