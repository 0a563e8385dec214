package io.lbk8s.install;

import java.util.List;
import java.util.regex.Pattern;

/** The kinds of cluster install treats differently (Talos: Pod Security and the exclude label; kind: Docker). */
public enum Distribution {
    TALOS("Talos"),
    KIND("kind"),
    OTHER("other");

    private final String displayName;

    Distribution(String displayName) {
        this.displayName = displayName;
    }

    public String displayName() {
        return displayName;
    }

    private static final Pattern KIND_NAME = Pattern.compile(".+-(control-plane|worker)\\d*");

    /** Pure: Talos by its OS image or its talos.dev labels/annotations; kind by providerID or its node names. */
    public static Distribution detect(List<NodeFacts> nodes) {
        if (nodes.isEmpty()) {
            return OTHER;
        }
        if (nodes.stream().anyMatch(Distribution::isTalos)) {
            return TALOS;
        }
        if (nodes.stream().anyMatch(n -> n.providerId().startsWith("kind://"))
                || nodes.stream()
                        .allMatch(n -> KIND_NAME.matcher(n.name()).matches()
                                && n.osImage().toLowerCase().contains("debian"))) {
            return KIND;
        }
        return OTHER;
    }

    private static boolean isTalos(NodeFacts node) {
        return node.osImage().startsWith("Talos")
                || node.labels().keySet().stream().anyMatch(k -> k.contains("talos.dev/"))
                || node.annotations().keySet().stream().anyMatch(k -> k.contains("talos.dev/"));
    }
}
