package io.lbk8s.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.KeyFactory;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Keys as OpenSSL writes them (test keys, made for this test only). */
class ClientKeysTest {

    static final String EC_SEC1 = """
-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIFk4Iyfs5q3uW4FncFwWBQSn0kbYdDO2hejQI4DfPvM6oAoGCCqGSM49
AwEHoUQDQgAEQnHiJcUGRysg3/8DmLxUnvmEN5vTliTnqi15OJ+QVTo89Ja5W8zF
/kAVNUncPuHMa4rktb+lwe82WL1LvbgAAg==
-----END EC PRIVATE KEY-----
""";

    /** The same key as {@code openssl pkcs8 -topk8 -nocrypt} writes it. */
    static final String EC_PKCS8 = """
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgWTgjJ+zmre5bgWdw
XBYFBKfSRth0M7aF6NAjgN8+8zqhRANCAARCceIlxQZHKyDf/wOYvFSe+YQ3m9OW
JOeqLXk4n5BVOjz0lrlbzMX+QBU1Sdw+4cxriuS1v6XB7zZYvUu9uAAC
-----END PRIVATE KEY-----
""";

    static final String EC_P384_SEC1 = """
-----BEGIN EC PRIVATE KEY-----
MIGkAgEBBDB0rbyBC6MgbR24riADJjM5dV8rb9m6m69Fon9OCI9KqhpUVwSVUIHt
/pnl6LbCokKgBwYFK4EEACKhZANiAASoSNoxdhIx7zpy5JylTCOq2VDVfgt1mBKE
Haiopq7wmuHbIYTw2LVjQof8HsQynm93W72deaqoAvrXvsim4VhXEWX2fcQG463p
ObWopM+p7EQZXF3SyztsDweiEMppV7E=
-----END EC PRIVATE KEY-----
""";

    static final String ED25519 = """
-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEILx5Ke1caQWdWsE2ymDdntix2EgsOgPKZscsXzPE7BnY
-----END PRIVATE KEY-----
""";

    static final String RSA_PKCS8 = """
-----BEGIN PRIVATE KEY-----
MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAwggJcAgEAAoGBAKN9n/gvWabInQ34
mLkb1gGJ2uWD0t7h/LicfdjZ5PgQxO27CC29FK+XT43ovcnqGT5x9nOau87eV6IJ
R5i/ozh76pF/4zgaNdX6jUZDoxQuTM/qiOREVVcTwLtCdcXVP+PoYGDIZkXFi0+N
VUkM6yOVwrJ6JxKCfVQ3WMu3wwb1AgMBAAECgYAMriKpIisG54pe2ggmW0VW6zVC
Fd5WERsDyodsOUIsB0ju01HIEmE3WTn/XKzTq0d382jVAIxOeCo91BBshXiIOjae
RINni0ff18wITybrfuMyl8A9ip0OjWvEB0+y5dn02W1AsZEGCZIA2myM09Jg1LeP
ThhqCsBDbvzmwIXFoQJBANavwDP7woNsclHFV/6aAGrrVKnkXy6qVR6e0BS7zqqb
Ifl05J41Wd18R17fyYtksVJH7xeHWf29XsVnFxgeDm0CQQDC88e4gV5jF5kpkWGY
BhK3G4BxTXnpRGhslGx1gkCesIHmwXm0wa/+axNxBRKzedKN/59KqjCHDRtoKBya
lOWpAkB1ZfpW8u91atJBAQeThKeB0Fql5Opf3Glbq0DidakYBmlXvqJeGZKg2Zs1
uG7AOTn2YrvORAfkB7BRhoRMffMpAkEAhelgQguTIyv9iEEVsZBSYLaiZrGaUTIt
LJBTY/BBpP+Ha1Nw30nAM1mntBWQ//lpOSLiby4yQUIulkAfTcuDaQJAbOohKbyX
KfKueUSvdIanw2Hw7FGtZ0j00G1YCDUCYvc6f2XyWlmwoFfGom6IzHtbDfq0uweK
Fc5vkjsVvFlCzA==
-----END PRIVATE KEY-----
""";

    static Stream<Arguments> keys() {
        return Stream.of(
                Arguments.of("EC, PKCS #8", EC_PKCS8, "EC"),
                Arguments.of("EC, SEC1 (k3s, openssl ecparam)", EC_SEC1, "EC"),
                Arguments.of("EC P-384, SEC1", EC_P384_SEC1, "EC"),
                Arguments.of("Ed25519", ED25519, "Ed25519"),
                Arguments.of("RSA, PKCS #8", RSA_PKCS8, "RSA"),
                Arguments.of(
                        "a certificate before the key",
                        "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n" + EC_SEC1,
                        "EC"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("keys")
    void aKeyBecomesPkcs8ThatTheJdkReadsWithTheNamedAlgorithm(String name, String pem, String algorithm)
            throws Exception {
        ClientKeys.Pkcs8 key = ClientKeys.normalize(pem).orElseThrow();

        assertThat(key.algorithm()).isEqualTo(algorithm);
        assertThat(key.pem()).startsWith("-----BEGIN PRIVATE KEY-----\n").endsWith("-----END PRIVATE KEY-----\n");
        assertThat(KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der(key.pem()))))
                .isNotNull();
    }

    @org.junit.jupiter.api.Test
    void aSec1KeyKeepsItsSecret() throws Exception {
        ECPrivateKey fromSec1 = ec(ClientKeys.normalize(EC_SEC1).orElseThrow().pem());
        ECPrivateKey fromOpenssl = ec(EC_PKCS8);

        assertThat(fromSec1.getS()).isEqualTo(fromOpenssl.getS());
        assertThat(fromSec1.getParams().getCurve())
                .isEqualTo(fromOpenssl.getParams().getCurve());
    }

    static Stream<Arguments> notKeys() {
        return Stream.of(
                Arguments.of("nothing", ""),
                Arguments.of("null", null),
                Arguments.of(
                        "PKCS #1 RSA, which fabric8 reads itself",
                        "-----BEGIN RSA PRIVATE KEY-----\nMAA=\n-----END RSA PRIVATE KEY-----"),
                Arguments.of(
                        "an encrypted key",
                        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMAA=\n-----END ENCRYPTED PRIVATE KEY-----"),
                Arguments.of("not base64", "-----BEGIN PRIVATE KEY-----\n@@@@\n-----END PRIVATE KEY-----"),
                Arguments.of("a truncated key", EC_SEC1.substring(0, 60) + "\n-----END EC PRIVATE KEY-----"),
                Arguments.of("an empty sequence", "-----BEGIN PRIVATE KEY-----\nMAA=\n-----END PRIVATE KEY-----"),
                Arguments.of(
                        "an unknown algorithm (DSA)",
                        "-----BEGIN PRIVATE KEY-----\n"
                                + "MB8CAQAwCwYHKoZIzjgEAQUABA0wCwIBAAIBAQIBAgIBAw==\n-----END PRIVATE KEY-----"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("notKeys")
    void whatItDoesNotKnowIsLeftToFabric8(String name, String pem) {
        assertThat(ClientKeys.normalize(pem)).isEqualTo(Optional.empty());
    }

    private static ECPrivateKey ec(String pem) throws Exception {
        return (ECPrivateKey) KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der(pem)));
    }

    private static byte[] der(String pem) {
        return Base64.getMimeDecoder()
                .decode(pem.replaceAll("-----[A-Z ]+-----", "").strip());
    }
}
