package io.lbk8s.peers;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.spec.SecretKeySpec;

/**
 * The keys that authenticate speakers' messages, from the Secret's {@code keys} field: one key a line. The first
 * signs what this speaker sends; every one is accepted from peers. Rotation is therefore three edits, each given time
 * to reach every speaker: add the new key as a second line, move it to the first, remove the old one.
 */
public record PeerKeys(List<SecretKeySpec> keys) {

    public static final int MIN_LENGTH = 32;
    public static final int MAX_KEYS = 8;
    static final String ALGORITHM = "HmacSHA256";

    public PeerKeys {
        keys = List.copyOf(keys);
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("at least one key");
        }
    }

    /** What the text of a Secret's field gives: keys, or a sentence saying what is wrong with it. */
    public sealed interface Parsed {
        record Valid(PeerKeys keys) implements Parsed {}

        record Invalid(String problem) implements Parsed {}
    }

    public static Parsed parse(String text) {
        List<SecretKeySpec> keys = new ArrayList<>();
        int lineNumber = 0;
        for (String line : text.split("\n", -1)) {
            lineNumber++;
            String key = line.strip();
            if (key.isEmpty()) {
                continue;
            }
            if (key.length() < MIN_LENGTH) {
                return new Parsed.Invalid("key on line " + lineNumber + " has " + key.length()
                        + " characters; at least " + MIN_LENGTH + " are needed (e.g. `openssl rand -hex 32`)");
            }
            keys.add(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), ALGORITHM));
        }
        if (keys.isEmpty()) {
            return new Parsed.Invalid("no key: the field holds no non-empty line");
        }
        if (keys.size() > MAX_KEYS) {
            return new Parsed.Invalid(
                    keys.size() + " keys; at most " + MAX_KEYS + " (keep the current and the previous one)");
        }
        return new Parsed.Valid(new PeerKeys(keys));
    }

    /** A new key's text: 32 random bytes as 64 hex characters. */
    public static String generate(SecureRandom random) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    SecretKeySpec signing() {
        return keys.getFirst();
    }
}
