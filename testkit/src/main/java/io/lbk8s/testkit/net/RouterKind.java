package io.lbk8s.testkit.net;

/** The BGP implementations the test network can run, with the versions the harness was written against. */
public enum RouterKind {
    /** FRR 8.4: zebra (the FIB), bgpd, bfdd; Debian package frr. */
    FRR,
    /** BIRD 2.0: one daemon, bird, with the kernel protocol for the FIB and the bfd protocol; Debian package bird2. */
    BIRD,
    /** GoBGP 3.10: gobgpd; no FIB of its own (the harness programs it) and no BFD; Debian package gobgpd. */
    GOBGP
}
