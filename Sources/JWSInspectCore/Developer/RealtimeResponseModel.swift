internal import FoundationEssentials

/// What Apple's Retention Messaging API accepts from a developer's Get Retention Message
/// endpoint (`RealtimeResponseBody`, app-store-server-library 3.1.2, Retention Messaging 1.5):
/// exactly one of its mutually exclusive options, each naming the approved message to show by
/// its `messageIdentifier`:
///
/// - `message`: a text message, with or without an image;
/// - `alternateProduct`: a switch-plan message, its `productId` (and `billingPlanType`);
/// - `promotionalOffer`: a message with a promotional offer, signed either as a V2 JWS
///   (`promotionalOfferSignatureV2`) or as the legacy V1 signature with its fields
///   (`promotionalOfferSignatureV1`), exactly one of them;
/// - `advancedCommerceInfo`: an Advanced Commerce offer or switch-plan recommendation,
///   `advancedCommerceData` (base64 of a JSON object holding a JWS).
///
/// A member Apple's model does not name is not a problem (Apple's models keep unknown
/// members; the display flags it); a missing or malformed member is, named by its path.
package enum RealtimeResponseModel {
    typealias Member = AdvancedCommerceRequestModel.Member

    /// The options, in Apple's order.
    package static let options = ["message", "alternateProduct", "promotionalOffer", "advancedCommerceInfo"]

    static var messageIdentifier: Member { Member("messageIdentifier", .uuid) }

    /// The legacy V1 signature and the fields it signs (`PromotionalOfferSignatureV1`).
    /// Made when asked, as `AdvancedCommerceRequestModel.members(of:)` are: a static of
    /// indirect enum boxes reads as a leak to LeakSanitizer (`make fuzz`).
    static var signatureV1: [Member] {
        [
            Member("encodedSignature", .string(maxLength: nil)), Member("productId", .string(maxLength: nil)),
            Member("nonce", .uuid), Member("timestamp", .integer(0...PromotionalOfferV1.maximumTimestamp)),
            Member("keyId", .string(maxLength: nil)), Member("offerIdentifier", .string(maxLength: nil)),
            Member("appAccountToken", .uuid, required: false),
        ]
    }

    /// An option's members.
    static func members(of option: String) -> [Member] {
        switch option {
        case "message": [messageIdentifier]
        case "alternateProduct":
            [
                messageIdentifier, Member("productId", .string(maxLength: nil)),
                Member("billingPlanType", .oneOf(["BILLED_UPFRONT", "MONTHLY"]), required: false),
            ]
        case "promotionalOffer":
            [
                messageIdentifier, Member("promotionalOfferSignatureV2", .jws, required: false),
                Member("promotionalOfferSignatureV1", .object(signatureV1), required: false),
            ]
        case "advancedCommerceInfo": [messageIdentifier, Member("advancedCommerceData", .string(maxLength: nil))]
        default: []
        }
    }

    /// Whether `document` is shaped as a realtime response: an object of at least one option
    /// and nothing else (a JSON log line with a `message` member among others is not one).
    package static func recognises(_ document: JSONValue) -> Bool {
        guard case .object(let object) = document, !object.isEmpty else { return false }
        return object.keys.allSatisfy { options.contains($0) }
    }

    /// The option the body holds, when it holds exactly one.
    package static func option(_ body: [String: JSONValue]) -> String? {
        let present = options.filter { body[$0] != nil }
        return present.count == 1 ? present[0] : nil
    }

    /// The problems of a body, each naming its member: at most `limit` (the first ones).
    package static func problems(_ body: [String: JSONValue], limit: Int = 5) -> [String] {
        let present = options.filter { body[$0] != nil }
        guard present.count == 1, let option = present.first, let value = body[option] else {
            let named = present.isEmpty ? "none" : "\(present.count): \(present.joined(separator: ", "))"
            return [
                "a realtime response holds exactly one of \(options.joined(separator: ", ")) (Apple's options "
                    + "are mutually exclusive); it holds \(named)"
            ]
        }
        var found: [String] = []
        AdvancedCommerceRequestModel.check(
            [option: value], [Member(option, .object(members(of: option)))], path: "", into: &found, limit: limit)
        guard found.count < limit, case .object(let object) = value else { return found }
        switch option {
        case "promotionalOffer":
            let signatures = ["promotionalOfferSignatureV2", "promotionalOfferSignatureV1"].filter {
                object[$0] != nil && object[$0] != .null
            }
            if signatures.count != 1 {
                found.append(
                    "promotionalOffer holds "
                        + (signatures.isEmpty ? "no offer signature" : "both offer signatures")
                        + ", expected exactly one of promotionalOfferSignatureV2 and promotionalOfferSignatureV1")
            }
        case "advancedCommerceInfo":
            if case .string(let data)? = object["advancedCommerceData"], !data.isEmpty,
                advancedCommerceData(data) == nil
            {
                found.append("advancedCommerceInfo.advancedCommerceData is not base64 of a JSON object")
            }
        default:
            break
        }
        return found
    }

    /// The line for support staff: "Realtime response: a promotional offer (message 3f2a…), signed V2."
    package static func summary(_ body: [String: JSONValue]) -> String {
        guard let option = option(body), case .object(let object)? = body[option] else {
            return "Realtime response holding \(options.filter { body[$0] != nil }.count) options, not one."
        }
        let message = object["messageIdentifier"]?.stringValue.map { " (message \(Excerpt.of($0)))" } ?? ""
        switch option {
        case "message":
            return "Realtime response: show the message\(message)."
        case "alternateProduct":
            let product = object["productId"]?.stringValue.map { " \(Excerpt.of($0))" } ?? ""
            return "Realtime response: suggest switching to\(product)\(message)."
        case "promotionalOffer":
            let version =
                object["promotionalOfferSignatureV2"] != nil
                ? "signed V2" : object["promotionalOfferSignatureV1"] != nil ? "signed V1" : "unsigned"
            return "Realtime response: a promotional offer\(message), \(version)."
        default:
            return "Realtime response: an Advanced Commerce offer or switch-plan recommendation\(message)."
        }
    }

    /// The most bytes `advancedCommerceData` is read from: 1 MiB, a token's limit.
    static let maximumDataSize = 1 << 20

    /// `advancedCommerceData` decoded: standard base64 of a JSON object.
    package static func advancedCommerceData(_ text: String) -> [String: JSONValue]? {
        guard text.utf8.count <= maximumDataSize * 4 / 3 + 4, let bytes = Data(base64Encoded: text),
            let object = try? JSONValue.decode(Array(bytes)).objectValue
        else { return nil }
        return object
    }
}
