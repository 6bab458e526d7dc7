/// The signed container a token came in: how its signer, certificates and payload are
/// laid out. An inspection carries one; renderers draw its header and payload sections
/// through `sections`, and never the container itself, so a new envelope renders
/// without touching JWS code.
///
/// A new envelope (a PKCS#7 receipt, `pkcs7(…)`) is one new case here, with its `Kind`
/// (which the input scanner tags its candidates with) and its `sections`.
public enum Envelope: Sendable {
    /// `header.payload.signature` in base64url (RFC 7515 §7.1): App Store and StoreKit data.
    case compactJWS(CompactJWS)

    /// What an input candidate is, before it is decoded (`InputScanner.Item.kind`).
    public enum Kind: String, Sendable, Equatable {
        case compactJWS = "compact JWS"
    }

    /// The sections renderers draw, whatever the envelope.
    public struct Sections: Sendable {
        /// What the signer says about the signature (a JWS's protected header): the HEADER
        /// table and the JSON `header` member.
        public let header: CompactJWS.DecodedSegment
        /// What was signed: the PAYLOAD table, the JSON `payload` member and the summary.
        public let payload: CompactJWS.DecodedSegment
    }

    public var kind: Kind {
        switch self {
        case .compactJWS: .compactJWS
        }
    }

    /// The compact JWS, when that is the envelope: what the JWS checks read.
    public var compactJWS: CompactJWS? {
        switch self {
        case .compactJWS(let jws): jws
        }
    }

    public var sections: Sections {
        switch self {
        case .compactJWS(let jws): Sections(header: jws.header, payload: jws.payload)
        }
    }
}

extension InputScanner.Item {
    /// The envelope a candidate opens as; nil for what cannot be one (`malformed`).
    public var kind: Envelope.Kind? {
        switch self {
        case .token: .compactJWS
        case .malformed: nil
        }
    }
}
