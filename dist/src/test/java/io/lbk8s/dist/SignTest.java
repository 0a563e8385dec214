package io.lbk8s.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/sign with throwaway keys made here by openssl: what it signs verifies, with the script and with the plain openssl
 * command docs/sbom.md gives; a changed file, another key's public key or a missing signature does not.
 */
class SignTest {
    static final Duration RUN = Duration.ofSeconds(60);
    static final Path SIGN = Path.of(System.getProperty("basedir", "."), "..", "bin", "sign");

    @TempDir
    static Path temp;

    static Path key;
    static Path publicKey;
    static Path otherPublicKey;

    @BeforeAll
    static void keys() {
        ImageIT.requireOrSkip(ImageIT.onPath("openssl"), "SignTest needs openssl (Debian package openssl)");
        key = keyPair("release", List.of());
        publicKey = temp.resolve("release.pub");
        keyPair("other", List.of());
        otherPublicKey = temp.resolve("other.pub");
    }

    /** NAME.key (encrypted with AES if extra has -aes256 -pass ...) and NAME.pub, ECDSA P-256 as docs/sbom.md says. */
    static Path keyPair(String name, List<String> extra) {
        Path privateKey = temp.resolve(name + ".key");
        List<String> generate = new ArrayList<>(List.of(
                "openssl",
                "genpkey",
                "-algorithm",
                "EC",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-out",
                privateKey.toString()));
        generate.addAll(extra);
        Cmd.run(RUN, generate).ok();
        List<String> publicPart = new ArrayList<>(List.of(
                "openssl",
                "pkey",
                "-in",
                privateKey.toString(),
                "-pubout",
                "-out",
                temp.resolve(name + ".pub").toString()));
        if (extra.contains("-pass")) {
            publicPart.addAll(List.of("-passin", extra.get(extra.indexOf("-pass") + 1)));
        }
        Cmd.run(RUN, publicPart).ok();
        return privateKey;
    }

    static Path release(String name, String content) throws IOException {
        Path dir = Files.createDirectories(temp.resolve("release-" + System.nanoTime()));
        return Files.writeString(dir.resolve(name), content);
    }

    static Cmd sign(Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>(List.of(SIGN.toString()));
        command.addAll(List.of(args));
        if (env == null) {
            return Cmd.run(RUN, command);
        }
        var environment = new java.util.HashMap<>(System.getenv());
        environment.putAll(env);
        return Cmd.run(RUN, environment, command);
    }

    @Test
    void signedFilesVerify() throws IOException {
        Path tarball = release("lbk8s-1.2.3-linux-x64.tar.gz", "the distribution");
        Path sbom = tarball.resolveSibling("lbk8s-1.2.3-linux-x64.cdx.json");
        Files.writeString(sbom, "{\"bomFormat\": \"CycloneDX\"}");

        Cmd signed =
                sign(null, key.toString(), tarball.toString(), sbom.toString()).ok();
        assertThat(signed.out()).isEqualTo(tarball + ".sig\n" + sbom + ".sig\n");
        Cmd verified = sign(null, "--verify", publicKey.toString(), tarball.toString(), sbom.toString())
                .ok();
        assertThat(verified.out()).isEqualTo(tarball + ": verified\n" + sbom + ": verified\n");

        // the command for those without this checkout
        Path der = temp.resolve("sig.der");
        Cmd.run(RUN, List.of("sh", "-c", "base64 -d \"$1\" >\"$2\"", "sh", tarball + ".sig", der.toString()))
                .ok();
        Cmd openssl = Cmd.run(
                        RUN,
                        List.of(
                                "openssl",
                                "dgst",
                                "-sha256",
                                "-verify",
                                publicKey.toString(),
                                "-signature",
                                der.toString(),
                                tarball.toString()))
                .ok();
        assertThat(openssl.out()).contains("Verified OK");
    }

    @Test
    void aChangedFileDoesNotVerify() throws IOException {
        Path tarball = release("lbk8s-1.2.3-linux-x64.tar.gz", "the distribution");
        Path sbom = tarball.resolveSibling("sbom.cdx.json");
        Files.writeString(sbom, "{}");
        sign(null, key.toString(), tarball.toString(), sbom.toString()).ok();
        Files.writeString(tarball, "the distribution, with something added");

        Cmd verified = sign(null, "--verify", publicKey.toString(), tarball.toString(), sbom.toString());
        assertThat(verified.exit()).isEqualTo(1);
        assertThat(verified.out()).isEqualTo(sbom + ": verified\n");
        assertThat(verified.err()).contains(tarball + ": NOT verified");
    }

    @Test
    void anotherKeyDoesNotVerify() throws IOException {
        Path tarball = release("lbk8s.tar.gz", "the distribution");
        sign(null, key.toString(), tarball.toString()).ok();
        Cmd verified = sign(null, "--verify", otherPublicKey.toString(), tarball.toString());
        assertThat(verified.exit()).isEqualTo(1);
        assertThat(verified.err()).contains(tarball + ": NOT verified");
    }

    @Test
    void anUnsignedFileDoesNotVerify() throws IOException {
        Path tarball = release("lbk8s.tar.gz", "the distribution");
        Cmd verified = sign(null, "--verify", publicKey.toString(), tarball.toString());
        assertThat(verified.exit()).isEqualTo(1);
        assertThat(verified.err()).contains("no signature " + tarball + ".sig");
    }

    @Test
    void anEncryptedKeyTakesItsPassphraseFromTheEnvironment() throws IOException {
        Path encrypted = keyPair("encrypted", List.of("-aes256", "-pass", "pass:correct horse"));
        Path tarball = release("lbk8s.tar.gz", "the distribution");

        Cmd wrong = sign(Map.of("LBK8S_SIGN_PASSPHRASE", "wrong"), encrypted.toString(), tarball.toString());
        assertThat(wrong.exit()).isEqualTo(1);
        assertThat(wrong.err()).contains(tarball + ": not signed");
        assertThat(tarball.resolveSibling("lbk8s.tar.gz.sig")).doesNotExist();

        sign(Map.of("LBK8S_SIGN_PASSPHRASE", "correct horse"), encrypted.toString(), tarball.toString())
                .ok();
        sign(null, "--verify", temp.resolve("encrypted.pub").toString(), tarball.toString())
                .ok();
    }

    @Test
    void aPrivateKeyIsRefusedForVerifying() throws IOException {
        Path tarball = release("lbk8s.tar.gz", "the distribution");
        Cmd verified = sign(null, "--verify", key.toString(), tarball.toString());
        assertThat(verified.exit()).isEqualTo(2);
        assertThat(verified.err()).contains("is not a PEM public key");
    }
}
