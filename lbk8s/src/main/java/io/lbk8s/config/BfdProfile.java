package io.lbk8s.config;

import io.lbk8s.bfd.BfdSettings;

/** A validated MetalLB BFDProfile: its name and the BFD parameters it sets. */
public record BfdProfile(String name, BfdSettings settings, ConfigOrigin origin) {}
