/// The signed container a token came in: how its signer, certificates and payload are
/// laid out. An inspection carries one; renderers draw its header and payload sections
/// through `sections`, and never the container itself, so a new envelope renders
/// without touching JWS code.
package enum Envelope: Sendable {
    /// `header.payload.signature` in base64url (RFC 7515 §7.1): App Store and StoreKit data.
    case compactJWS(CompactJWS)
    /// A PKCS#7 (CMS) SignedData container: a legacy App Store receipt.
    case pkcs7(ReceiptEnvelope)
    /// An OpenStep property list: a StoreKit 1 transaction receipt, signed in a format
    /// nothing here verifies.
    case transactionReceipt(TransactionReceiptEnvelope)
    /// A JSON document a developer's server answers the App Store with (a realtime response),
    /// signed by nothing itself.
    case realtimeResponse(RealtimeResponseEnvelope)

    /// What an input candidate is, before it is decoded (`InputScanner.Item.kind`).
    package enum Kind: String, Sendable, Equatable {
        case compactJWS = "compact JWS"
        case pkcs7 = "PKCS#7"
        case transactionReceipt = "StoreKit 1 transaction receipt"
        case realtimeResponse = "realtime response"
    }

    /// The sections renderers draw, whatever the envelope.
    package struct Sections: Sendable {
        /// What the signer says about the signature (a JWS's protected header; a receipt's
        /// container): the HEADER (or CONTAINER) table and the JSON `header` member.
        package let header: CompactJWS.DecodedSegment
        /// What was signed: the PAYLOAD table, the JSON `payload` member and the summary.
        package let payload: CompactJWS.DecodedSegment
        /// The header table's title: "HEADER" for a JWS, "CONTAINER" for a receipt, "TRANSACTION
        /// RECEIPT" for a StoreKit 1 transaction receipt.
        package let headerTitle: String
        /// The header members in the order tables show them first (the rest follow, sorted).
        package let headerOrder: [String]
    }

    package var kind: Kind {
        switch self {
        case .compactJWS: .compactJWS
        case .pkcs7: .pkcs7
        case .transactionReceipt: .transactionReceipt
        case .realtimeResponse: .realtimeResponse
        }
    }

    /// The envelope's name in JSON output (`envelope`): "compactJWS", "pkcs7" or "transactionReceipt".
    package var name: String {
        switch self {
        case .compactJWS: "compactJWS"
        case .pkcs7: "pkcs7"
        case .transactionReceipt: "transactionReceipt"
        case .realtimeResponse: "realtimeResponse"
        }
    }

    /// The compact JWS, when that is the envelope: what the JWS checks read.
    package var compactJWS: CompactJWS? {
        switch self {
        case .compactJWS(let jws): jws
        case .pkcs7, .transactionReceipt, .realtimeResponse: nil
        }
    }

    /// The receipt, when that is the envelope.
    package var receipt: ReceiptEnvelope? {
        switch self {
        case .compactJWS, .transactionReceipt, .realtimeResponse: nil
        case .pkcs7(let receipt): receipt
        }
    }

    /// The StoreKit 1 transaction receipt, when that is the envelope.
    package var transactionReceipt: TransactionReceiptEnvelope? {
        if case .transactionReceipt(let receipt) = self { return receipt }
        return nil
    }

    /// The realtime response, when that is the envelope.
    package var realtimeResponse: RealtimeResponseEnvelope? {
        if case .realtimeResponse(let response) = self { return response }
        return nil
    }

    package var sections: Sections {
        switch self {
        case .compactJWS(let jws):
            Sections(
                header: jws.header, payload: jws.payload, headerTitle: "HEADER",
                headerOrder: ["alg", "kid", "typ", "x5c"])
        case .pkcs7(let receipt):
            Sections(
                header: receipt.header, payload: receipt.payloadSegment, headerTitle: "CONTAINER",
                headerOrder: ReceiptEnvelope.headerOrder)
        case .transactionReceipt(let receipt):
            Sections(
                header: receipt.header, payload: receipt.payload, headerTitle: "TRANSACTION RECEIPT",
                headerOrder: TransactionReceiptEnvelope.headerOrder)
        case .realtimeResponse(let response):
            Sections(
                header: response.header, payload: response.payload, headerTitle: "REALTIME RESPONSE",
                headerOrder: RealtimeResponseEnvelope.headerOrder)
        }
    }
}

extension InputScanner.Item {
    /// The envelope a candidate opens as; nil for what cannot be one (`malformed`).
    package var kind: Envelope.Kind? {
        switch self {
        case .token: .compactJWS
        case .receipt: .pkcs7
        case .transactionReceipt: .transactionReceipt
        case .realtimeResponse: .realtimeResponse
        case .malformed: nil
        }
    }
}
