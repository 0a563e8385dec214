package io.lbk8s.demo;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** What {@code demo/run} runs: its steps, how to look around with --keep, and how it removes what it made. */
interface Walkthrough {

    /** Said as the first line, e.g. "a MetalLB-compatible layer-2 load balancer, on a sandbox LAN on this machine". */
    String title();

    /** "sandbox" or "cluster", in the teardown's heading and messages. */
    String what();

    void run() throws Exception;

    List<String> exploreHints();

    /** Removes what it made and {@code directory} (empty when the user keeps the logs). */
    Teardown.Result teardown(Optional<Path> directory);
}
