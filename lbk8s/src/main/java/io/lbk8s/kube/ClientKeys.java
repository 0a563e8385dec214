package io.lbk8s.kube;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A kubeconfig's client key in the form fabric8's client reads: PKCS #8 with its algorithm named. fabric8 takes every
 * key for RSA unless told otherwise, and reads SEC1 keys ({@code EC PRIVATE KEY}, as k3s and OpenSSL write them) only
 * with Bouncy Castle, so an ECDSA or Ed25519 admin key ended every CLI command with "Invalid DER: object is not
 * integer" while kubectl worked (seen with the test cluster's EC admin key; k3s writes EC keys too).
 */
public final class ClientKeys {

    /** The key as PKCS #8 PEM and its JCA algorithm name ({@code RSA}, {@code EC}, {@code Ed25519}). */
    public record Pkcs8(String algorithm, String pem) {}

    private static final Pattern PEM =
            Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]+?)\\s*-----END \\1-----");
    private static final byte[] EC_PUBLIC_KEY = {0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01};
    private static final byte[] RSA_ENCRYPTION = {
        0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01
    };
    private static final byte[] ED25519 = {0x06, 0x03, 0x2b, 0x65, 0x70};
    private static final int SEQUENCE = 0x30;
    private static final int INTEGER = 0x02;
    private static final int OCTET_STRING = 0x04;
    private static final int OID = 0x06;
    private static final int PARAMETERS = 0xa0;

    private ClientKeys() {}

    /**
     * The PEM key as PKCS #8 with its algorithm; empty for what is not a PEM private key this knows (an encrypted key,
     * a PKCS #1 RSA key, which fabric8 reads itself, or garbage), which is then left to fabric8 and its messages.
     */
    public static Optional<Pkcs8> normalize(String pem) {
        Matcher m = PEM.matcher(pem == null ? "" : pem);
        // a key file may hold the certificate too (kubelet-client-current.pem): the key is the block that says so
        boolean found;
        while ((found = m.find()) && !m.group(1).endsWith("PRIVATE KEY")) {
            // skip it
        }
        if (!found) {
            return Optional.empty();
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(m.group(2));
        } catch (IllegalArgumentException notBase64) {
            return Optional.empty();
        }
        try {
            return switch (m.group(1)) {
                case "PRIVATE KEY" -> algorithmOf(der).map(algorithm -> new Pkcs8(algorithm, pem(der)));
                case "EC PRIVATE KEY" -> Optional.of(new Pkcs8("EC", pem(sec1ToPkcs8(der))));
                default -> Optional.empty();
            };
        } catch (IndexOutOfBoundsException | IllegalArgumentException malformed) {
            return Optional.empty();
        }
    }

    /** PrivateKeyInfo ::= SEQUENCE { version INTEGER, algorithm SEQUENCE { OID, ... }, key OCTET STRING } */
    private static Optional<String> algorithmOf(byte[] der) {
        Der info = Der.read(der, 0, SEQUENCE);
        Der version = Der.read(der, info.contentStart(), INTEGER);
        Der algorithm = Der.read(der, version.end(), SEQUENCE);
        Der oid = Der.read(der, algorithm.contentStart(), OID);
        byte[] encoded = Arrays.copyOfRange(der, oid.start(), oid.end());
        if (Arrays.equals(encoded, EC_PUBLIC_KEY)) {
            return Optional.of("EC");
        }
        if (Arrays.equals(encoded, RSA_ENCRYPTION)) {
            return Optional.of("RSA");
        }
        if (Arrays.equals(encoded, ED25519)) {
            return Optional.of("Ed25519");
        }
        return Optional.empty();
    }

    /**
     * ECPrivateKey ::= SEQUENCE { version INTEGER, privateKey OCTET STRING, parameters [0] OID, ... } wrapped as
     * PrivateKeyInfo { 0, { ecPublicKey, curve OID }, OCTET STRING { the ECPrivateKey } }.
     */
    private static byte[] sec1ToPkcs8(byte[] der) {
        Der key = Der.read(der, 0, SEQUENCE);
        Der version = Der.read(der, key.contentStart(), INTEGER);
        Der secret = Der.read(der, version.end(), OCTET_STRING);
        Der parameters = Der.read(der, secret.end(), PARAMETERS);
        Der curve = Der.read(der, parameters.contentStart(), OID);
        byte[] sec1 = Arrays.copyOfRange(der, key.start(), key.end());
        byte[] algorithm =
                Der.encode(SEQUENCE, concat(EC_PUBLIC_KEY, Arrays.copyOfRange(der, curve.start(), curve.end())));
        return Der.encode(SEQUENCE, concat(new byte[] {INTEGER, 1, 0}, algorithm, Der.encode(OCTET_STRING, sec1)));
    }

    private static String pem(byte[] der) {
        return "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END PRIVATE KEY-----\n";
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /** One DER element: where it starts, where its content starts, where it ends. */
    private record Der(int start, int contentStart, int end) {

        static Der read(byte[] der, int at, int expectedTag) {
            if ((der[at] & 0xff) != expectedTag) {
                throw new IllegalArgumentException("expected tag " + expectedTag + " at " + at);
            }
            int first = der[at + 1] & 0xff;
            int length;
            int content;
            if (first < 0x80) {
                length = first;
                content = at + 2;
            } else {
                int octets = first & 0x7f;
                if (octets == 0 || octets > 3) {
                    throw new IllegalArgumentException("unsupported length at " + at);
                }
                length = 0;
                for (int i = 0; i < octets; i++) {
                    length = (length << 8) | (der[at + 2 + i] & 0xff);
                }
                content = at + 2 + octets;
            }
            if (content + length > der.length) {
                throw new IllegalArgumentException("element at " + at + " runs past the end");
            }
            return new Der(at, content, content + length);
        }

        static byte[] encode(int tag, byte[] content) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(tag);
            int length = content.length;
            if (length < 0x80) {
                out.write(length);
            } else if (length < 0x100) {
                out.write(0x81);
                out.write(length);
            } else {
                out.write(0x82);
                out.write(length >> 8);
                out.write(length & 0xff);
            }
            out.writeBytes(content);
            return out.toByteArray();
        }
    }
}
