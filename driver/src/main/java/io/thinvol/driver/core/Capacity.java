package io.thinvol.driver.core;

/**
 * Capacity figures for GetCapacity.
 *
 * @param availableBytes bytes of new volumes this node can still promise
 * @param maximumVolumeBytes the largest single volume it can create now
 */
public record Capacity(long availableBytes, long maximumVolumeBytes) {}
