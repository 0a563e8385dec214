package io.lbk8s.config;

/**
 * The one parser and validator of lbk8s configuration (MetalLB IPAddressPools and L2Advertisements, and the lbk8s
 * ConfigMap), used by the controller, the speaker and validation alike. TO BE IMPLEMENTED.
 */
public final class ConfigParser {
    private ConfigParser() {}

    public static ConfigResult parse(ConfigSources sources) {
        throw new UnsupportedOperationException("not yet");
    }
}
