package io.thinvol.driver.host;

/** statfs figures of a mounted filesystem, in bytes and inodes. */
public record FsUsage(
    long totalBytes,
    long availableBytes,
    long usedBytes,
    long totalInodes,
    long freeInodes,
    long usedInodes) {}
