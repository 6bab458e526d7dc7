/// A realtime response (what a developer's Get Retention Message endpoint returns to the App
/// Store, Retention Messaging's `RealtimeResponseBody`) as an envelope: a JSON document the
/// developer's server writes, signed by nothing itself; an offer inside it may be signed (a V2
/// JWS, verified as a nested token, or the legacy V1 signature, checked with `--key`).
///
/// Its REALTIME RESPONSE section says which option it holds; the PAYLOAD is the document.
package struct RealtimeResponseEnvelope: Sendable {
    /// The option it holds when it holds exactly one (`RealtimeResponseModel.options`).
    package let option: String?
    /// The section above the payload: `{"option": …, "signed": …}`.
    let header: CompactJWS.DecodedSegment
    /// The document as given.
    let payload: CompactJWS.DecodedSegment

    package static let headerOrder = ["option", "signed"]

    /// The document's bytes and the object they hold (`RealtimeResponseModel.recognises`).
    init(bytes: [UInt8], body: [String: JSONValue]) {
        let option = RealtimeResponseModel.option(body)
        self.option = option
        var signed = "nothing: a realtime response is your server's answer, not signed"
        if case .object(let offer)? = body["promotionalOffer"] {
            if offer["promotionalOfferSignatureV2"] != nil {
                signed += "; its promotionalOfferSignatureV2 is a JWS, verified as a nested token"
            } else if offer["promotionalOfferSignatureV1"] != nil {
                signed += "; its promotionalOfferSignatureV1 is checked with --key and --bundle-id"
            }
        } else if body["advancedCommerceInfo"] != nil {
            signed += "; the JWS in its advancedCommerceData are verified as nested tokens"
        }
        let members: [(String, OrderedJSON)] = [
            ("option", option.map { .string($0) } ?? .null), ("signed", .string(signed)),
        ]
        let object = OrderedJSON.object(.init(distinct: members))
        header = CompactJWS.DecodedSegment(
            bytes: object.bytes,
            essentials: ["option": option.map { .string($0) } ?? .null, "signed": .string(signed)], isComplete: true,
            isCompact: true)
        payload = CompactJWS.DecodedSegment(
            bytes: bytes, essentials: body, isComplete: true, recognisedKind: .realtimeResponse)
    }

    /// The document's object.
    package var body: [String: JSONValue] { payload.essentials }
}
