import { input, inputs, result, type Selector, WorkflowBuilder } from "../dsl.js";

const f = (node: string, key: string): Selector => [...result(node), key];

/**
 * SOP §4–5: the six implemented pipeline tools in order, then every threshold check. A refused step (e.g.
 * segmentation of a missing detection) means the video cannot be annotated: each tool's fail branch leads to
 * `false`. The environment rules (urban scene, daylight, front camera) are semantic; the sets are this
 * workflow's reading of the corpus's free-text values.
 */
export function videoAnnotation() {
  const b = new WorkflowBuilder(
    "video_annotation",
    "SOP-Bench video annotation: format, LiDAR, detection, segmentation, QC and human validation must all pass their thresholds.",
  );
  b.start(inputs(["video_id"]));
  const video_id = input("video_id");
  const branch = { onError: "branch" } as const;
  b.tool("format", "validateVideoFormat", { video_id }, branch);
  b.tool("lidar", "validateLidarData", { video_id, video_path: f("format", "video_path") }, branch);
  b.tool("detection", "performObjectDetection", { video_id, video_path: f("format", "video_path") }, branch);
  b.tool(
    "segmentation",
    "executeSegmentation",
    {
      video_id,
      predicted_object: f("detection", "predicted_object"),
      object_detection_output_path: f("detection", "object_detection_output_path"),
      output_format_object_detection: f("detection", "output_format_object_detection"),
    },
    branch,
  );
  const chain = {
    video_id,
    predicted_object: f("detection", "predicted_object"),
    predicted_iou: f("segmentation", "predicted_iou"),
    segmentation_output_path: f("segmentation", "segmentation_output_path"),
    object_detection_output_path: f("detection", "object_detection_output_path"),
  };
  b.tool("qc", "runAutomatedQC", { ...chain, video_path: f("format", "video_path") }, branch);
  b.tool("human", "performHumanValidation", chain, branch);
  b.code(
    "checks",
    "Threshold checks",
    {
      fmt: result("format"),
      lidar: result("lidar"),
      od: result("detection"),
      seg: result("segmentation"),
      qc: result("qc"),
      human: result("human"),
    },
    `
const URBAN = ["union station", "crowded high-rise district", "dense street", "university district", "mixed use street", "downtown square", "riverfront", "bus terminal", "cityscape", "arcade", "concourse"];
const DAYLIGHT = ["golden hour", "visible horizon", "clear"];
const FRONT = ["dash", "driver seat", "passenger seat near driver", "camera beside hud"];
const num = Number;
const low = (v) => String(v).toLowerCase();

function main({ fmt, lidar, od, seg, qc, human }) {
  const checks = [
    fmt.format === "HEVC" || fmt.format === "H.264",
    num(fmt.resolution_width) >= 1920 && num(fmt.resolution_height) >= 1080,
    num(fmt.frame_rate) >= 24 && num(fmt.frame_rate) <= 60,
    num(fmt.bit_depth) === 8 || num(fmt.bit_depth) === 10,
    num(fmt.channel_count) >= 3,
    URBAN.includes(low(fmt.scene_type)),
    DAYLIGHT.includes(low(fmt.lighting_conditions)),
    FRONT.includes(low(fmt.camera_position)),
    String(lidar.lidar_point_cloud_path).endsWith(".pcd"),
    Math.abs(num(lidar.time_offset)) <= 1.0,
    lidar.lidar_transform_available === true,
    lidar.camera_intrinsics_available === true,
    num(lidar.object_distance) >= 0.5 && num(lidar.object_distance) <= 150,
    num(od.confidence_threshold_object_detection) > 0.85,
    od.ground_truth_object === od.predicted_object,
    od.tracking_enabled === true,
    od.output_format_object_detection === "json",
    seg.segmentation_type === "instance",
    num(seg.predicted_iou) >= 0.75,
    seg.temporal_smoothing === true,
    seg.output_format_segmentation === "binary",
    num(qc.spatial_accuracy_score) >= 0.85,
    num(qc.temporal_consistency_score) > 0.8,
    num(human.min_reviewers) >= 2,
    num(human.inter_annotator_score) >= 0.75,
  ];
  return { passed: checks.every(Boolean) };
}`,
    { passed: "boolean" },
  );
  b.code("refused", "A step was refused", {}, "function main() {\n  return { passed: false };\n}", {
    passed: "boolean",
  });
  b.aggregate("status_out", "Final status", "boolean", [
    ["checks", "passed"],
    ["refused", "passed"],
  ]);
  b.end("end", { "final status": ["status_out", "output"] });
  const steps = ["format", "lidar", "detection", "segmentation", "qc", "human"];
  b.chain("start", ...steps, "checks", "status_out", "end");
  for (const s of steps) b.edge(s, "refused", "fail-branch");
  b.edge("refused", "status_out");
  return b.build();
}
