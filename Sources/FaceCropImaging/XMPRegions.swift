import CFaceDetect
import Foundation

/// The face regions of one XMP packet as Exiv2 reads them (the shim's
/// xmp.cpp), every field still the packet's text: `FaceTags` checks them
/// and turns them into boxes.
package struct XMPRegions: Sendable, Equatable {
    package enum Schema: Sendable, Equatable {
        /// The Metadata Working Group's `mwg-rs:RegionList`: an Area whose
        /// x and y are its centre, normalised to AppliedToDimensions.
        case mwg
        /// Microsoft's `MPRI:Regions`: a Rectangle "left, top, width, height", normalised.
        case microsoft
    }

    package struct Region: Sendable, Equatable {
        package var schema: Schema
        /// 1-based place in its list (for messages).
        package var position: Int
        package var name: String?
        package var type: String?
        package var x: String?
        package var y: String?
        package var w: String?
        package var h: String?
        package var unit: String?
        package var rectangle: String?

        package init(schema: Schema, position: Int, name: String? = nil, type: String? = nil, x: String? = nil,
            y: String? = nil, w: String? = nil, h: String? = nil, unit: String? = nil, rectangle: String? = nil) {
            (self.schema, self.position, self.name, self.type, self.x, self.y) = (schema, position, name, type, x, y)
            (self.w, self.h, self.unit, self.rectangle) = (w, h, unit, rectangle)
        }
    }

    package var regions: [Region] = []
    /// mwg-rs:AppliedToDimensions.
    package var appliedWidth: String?
    package var appliedHeight: String?
    package var appliedUnit: String?

    /// Decodes `packet`; the reason when it is not XMP.
    package static func read(_ packet: UnsafeRawBufferPointer) -> Result<XMPRegions, XMPFailure> {
        var handle: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        let status = CFaceDetect_XmpRegionsRead(
            packet.baseAddress?.assumingMemoryBound(to: CChar.self), packet.count, &handle, &message)
        guard status == 0, let handle else {
            return .failure(XMPFailure(reason: takeMessage(message, fallback: "not XMP", free: CFaceDetect_Free)))
        }
        let owner = Handle(handle)
        var result = XMPRegions()
        let text: (UnsafePointer<CChar>?) -> String? = { $0.map { String(decoding: Data(bytes: $0, count: strlen($0)), as: UTF8.self) } }
        for index in 0..<CFaceDetect_XmpRegionCount(owner.pointer) {
            guard let raw = CFaceDetect_XmpRegionAt(owner.pointer, index)?.pointee else { continue }
            result.regions.append(
                Region(
                    schema: raw.schema == 0 ? .mwg : .microsoft, position: Int(raw.position), name: text(raw.name),
                    type: text(raw.type), x: text(raw.x), y: text(raw.y), w: text(raw.w), h: text(raw.h),
                    unit: text(raw.unit), rectangle: text(raw.rectangle)))
        }
        result.appliedWidth = text(CFaceDetect_XmpAppliedWidth(owner.pointer))
        result.appliedHeight = text(CFaceDetect_XmpAppliedHeight(owner.pointer))
        result.appliedUnit = text(CFaceDetect_XmpAppliedUnit(owner.pointer))
        return .success(result)
    }

    package static func read(_ packet: [UInt8]) -> Result<XMPRegions, XMPFailure> {
        packet.withUnsafeBytes { read($0) }
    }

    /// A whole XMP sidecar with MWG face regions, for a photo whose stored
    /// pixels are `width` x `height`; `faces` as normalised centre-based areas.
    package static func sidecar(faces: [(name: String, x: Double, y: Double, w: Double, h: Double)], width: Int, height: Int)
        -> Result<String, XMPFailure>
    {
        // C copies of the names, alive for the call.
        let names = faces.map { strdup($0.name) }
        defer { names.forEach { free($0) } }
        let records = zip(faces, names).map { face, name in
            CFaceDetect_XmpFace(name: UnsafePointer(name), x: face.x, y: face.y, w: face.w, h: face.h)
        }
        var packet: UnsafeMutablePointer<CChar>?
        var message: UnsafeMutablePointer<CChar>?
        let status = CFaceDetect_XmpRegionsWrite(records, records.count, Int32(width), Int32(height), &packet, &message)
        guard status == 0, let packet else {
            return .failure(XMPFailure(reason: takeMessage(message, fallback: "could not write XMP", free: CFaceDetect_Free)))
        }
        defer { CFaceDetect_Free(packet) }
        return .success(String(cString: packet))
    }

    /// Owns the shim's result: freed once, when the last reference goes.
    private final class Handle {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { CFaceDetect_XmpRegionsFree(pointer) }
    }

    package init(regions: [Region] = [], appliedWidth: String? = nil, appliedHeight: String? = nil,
        appliedUnit: String? = nil) {
        (self.regions, self.appliedWidth, self.appliedHeight) = (regions, appliedWidth, appliedHeight)
        self.appliedUnit = appliedUnit
    }
}

package struct XMPFailure: Error, Sendable, Equatable {
    package var reason: String

    package init(reason: String) {
        self.reason = reason
    }
}
