package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The metallb.io CRDs, embedded from {@code deploy/crds} (the copies under {@code install/crds} are checked to be
 * identical by {@code CrdCopiesTest}). Loaded fresh on each call so that callers may label them.
 */
public final class Crds {
    private Crds() {}

    /** The file names, in apply order. */
    public static final List<String> FILES = List.of(
            "metallb.io_ipaddresspools.yaml",
            "metallb.io_l2advertisements.yaml",
            "metallb.io_bfdprofiles.yaml",
            "metallb.io_communities.yaml",
            "metallb.io_bgppeers.yaml",
            "metallb.io_bgpadvertisements.yaml",
            "metallb.io_servicel2statuses.yaml",
            "metallb.io_servicebgpstatuses.yaml",
            "metallb.io_bgpsessionstates.yaml",
            "metallb.io_configurationstates.yaml",
            "lbk8s.io_ipaddressclaims.yaml",
            "lbk8s.io_addressconflicts.yaml");

    public static List<CustomResourceDefinition> load() {
        List<CustomResourceDefinition> crds = new ArrayList<>();
        for (String file : FILES) {
            try (InputStream in = Crds.class.getResourceAsStream("/install/crds/" + file)) {
                if (in == null) {
                    throw new IllegalStateException("the jar lacks the embedded CRD install/crds/" + file);
                }
                crds.add(ManifestOutput.SERIALIZATION.unmarshal(in, CustomResourceDefinition.class));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return crds;
    }
}
