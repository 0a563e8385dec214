package io.lbk8s.bgp;

/** The English names of NOTIFICATION codes and subcodes (RFC 4271 4.5, RFC 4486, RFC 7313, RFC 8203/9003). */
final class NotificationNames {
    private NotificationNames() {}

    static String describe(int code, int subcode) {
        String name = codeName(code);
        String sub = subcodeName(code, subcode);
        return sub.isEmpty() ? name : name + " / " + sub;
    }

    static String codeName(int code) {
        return switch (code) {
            case 1 -> "Message Header Error";
            case 2 -> "OPEN Message Error";
            case 3 -> "UPDATE Message Error";
            case 4 -> "Hold Timer Expired";
            case 5 -> "Finite State Machine Error";
            case 6 -> "Cease";
            case 7 -> "ROUTE-REFRESH Message Error";
            default -> "error code " + code;
        };
    }

    private static String subcodeName(int code, int subcode) {
        String name = switch (code) {
            case 1 ->
                switch (subcode) {
                    case 1 -> "Connection Not Synchronized";
                    case 2 -> "Bad Message Length";
                    case 3 -> "Bad Message Type";
                    default -> null;
                };
            case 2 ->
                switch (subcode) {
                    case 1 -> "Unsupported Version Number";
                    case 2 -> "Bad Peer AS";
                    case 3 -> "Bad BGP Identifier";
                    case 4 -> "Unsupported Optional Parameter";
                    case 6 -> "Unacceptable Hold Time";
                    case 7 -> "Unsupported Capability";
                    case 11 -> "Role Mismatch";
                    default -> null;
                };
            case 3 ->
                switch (subcode) {
                    case 1 -> "Malformed Attribute List";
                    case 2 -> "Unrecognized Well-known Attribute";
                    case 3 -> "Missing Well-known Attribute";
                    case 4 -> "Attribute Flags Error";
                    case 5 -> "Attribute Length Error";
                    case 6 -> "Invalid ORIGIN Attribute";
                    case 8 -> "Invalid NEXT_HOP Attribute";
                    case 9 -> "Optional Attribute Error";
                    case 10 -> "Invalid Network Field";
                    case 11 -> "Malformed AS_PATH";
                    default -> null;
                };
            case 5 ->
                switch (subcode) {
                    case 1 -> "Unexpected Message in OpenSent State";
                    case 2 -> "Unexpected Message in OpenConfirm State";
                    case 3 -> "Unexpected Message in Established State";
                    default -> null;
                };
            case 6 ->
                switch (subcode) {
                    case 1 -> "Maximum Number of Prefixes Reached";
                    case 2 -> "Administrative Shutdown";
                    case 3 -> "Peer De-configured";
                    case 4 -> "Administrative Reset";
                    case 5 -> "Connection Rejected";
                    case 6 -> "Other Configuration Change";
                    case 7 -> "Connection Collision Resolution";
                    case 8 -> "Out of Resources";
                    case 9 -> "Hard Reset";
                    case 10 -> "BFD Down";
                    default -> null;
                };
            case 7 -> subcode == 1 ? "Invalid Message Length" : null;
            default -> null;
        };
        if (name != null) {
            return name;
        }
        return subcode == 0 ? "" : "subcode " + subcode;
    }
}
