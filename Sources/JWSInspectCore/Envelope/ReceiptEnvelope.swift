/// A legacy App Store receipt as an envelope: its PKCS#7 (CMS) SignedData container and the
/// receipt decoded from the content, with the two sections renderers draw.
///
/// The CONTAINER section says how the receipt is signed (encoding, algorithms, certificates,
/// signer); the PAYLOAD section is the receipt in verifyReceipt's field names
/// (`ReceiptPayload.jsonBytes`).
package struct ReceiptEnvelope: Sendable {
    /// The container, parsed and its signature checked by OpenSSL.
    package let container: CMSSignedData
    /// The receipt's fields and in-app entries.
    package let payload: ReceiptPayload
    /// "DER", or "BER" (indefinite lengths, as StoreKit Testing in Xcode writes receipts).
    package let encoding: String
    /// The two sections, made when first drawn (a `--quiet` run never makes them) and kept.
    private let sections = Locked<(header: CompactJWS.DecodedSegment, payload: CompactJWS.DecodedSegment)?>(nil)

    /// The container's description as a JSON object (the `header` of JSON output).
    var header: CompactJWS.DecodedSegment { madeSections.header }
    /// The receipt as a JSON object (the `payload` of JSON output).
    var payloadSegment: CompactJWS.DecodedSegment { madeSections.payload }

    /// The CONTAINER members in the order tables show them.
    package static let headerOrder = [
        "format", "encoding", "contentType", "digestAlgorithm", "signatureAlgorithm", "certificates", "signer",
        "contentLength",
    ]

    /// Why bytes are not a readable receipt (always exit 5, malformed).
    package enum DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        case container(CMSSignedData.ParseError)
        case content(ReceiptPayload.DecodingError)

        package var description: String {
            switch self {
            case .container(let error): error.description
            case .content(let error): error.description
            }
        }
    }

    /// Parses a receipt's DER or BER bytes: the container (its signature checked, see
    /// `CMSSignedData`), then the content.
    ///
    /// - Throws: `DecodingError` when the container or the content cannot be read, or a limit
    ///   is exceeded. A signature that does not verify is not thrown: the `signature` check says so.
    package init(der: [UInt8]) throws(DecodingError) {
        try self.init(der: der, certificateSets: nil)
    }

    /// Parses a receipt as `init(der:)` does, its certificates through `certificateSets` (see
    /// `CMSSignedData.init(bytes:certificateSets:)`).
    init(der: [UInt8], certificateSets: (any CertificateSetStore)?) throws(DecodingError) {
        let container: CMSSignedData
        do {
            container = try CMSSignedData(bytes: der, certificateSets: certificateSets)
        } catch {
            throw .container(error)
        }
        do {
            payload = try ReceiptPayload(der: container.content)
        } catch {
            throw .content(error)
        }
        self.container = container
        encoding = der.count > 1 && der[1] == 0x80 ? "BER" : "DER"
    }

    private var madeSections: (header: CompactJWS.DecodedSegment, payload: CompactJWS.DecodedSegment) {
        sections.withLock { made in
            if let made { return made }
            let new = (header: makeHeader(), payload: makePayload())
            made = new
            return new
        }
    }

    private func makeHeader() -> CompactJWS.DecodedSegment {
        let description: [(String, JSONValue)] = [
            ("format", .string("PKCS#7 SignedData")), ("encoding", .string(encoding)),
            ("contentType", .string("data")), ("digestAlgorithm", .string(container.digestAlgorithm)),
            ("signatureAlgorithm", .string(container.signatureAlgorithm)),
            ("certificates", .integer(Int64(container.certificates.count))),
            ("signer", .string(container.signerCertificate.subject)),
            ("contentLength", .integer(Int64(container.content.count))),
        ]
        let headerBytes = OrderedJSON.object(.init(distinct: description.map { ($0, OrderedJSON($1)) })).bytes
        return CompactJWS.DecodedSegment(
            bytes: headerBytes, essentials: Dictionary(uniqueKeysWithValues: description), isComplete: true)
    }

    private func makePayload() -> CompactJWS.DecodedSegment {
        let (members, bytes) = payload.orderedMembersAndBytes
        // OrderedJSON's compact text: no whitespace between tokens, control characters escaped.
        return CompactJWS.DecodedSegment(
            bytes: bytes, essentials: Dictionary(uniqueKeysWithValues: members), isComplete: true,
            recognisedKind: .receipt, isCompact: true)
    }
}
