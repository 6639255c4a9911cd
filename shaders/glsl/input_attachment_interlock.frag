// Programmable blending through an input attachment: subpassLoad is an OpImageRead of a
// SubpassData image, which reads the framebuffer, not storage memory, so the shader neither
// writes nor accesses memory in the analysis' sense.
// expect: model=Fragment interlock=pixel-ordered begin=1 end=1 begin_divergent=false end_divergent=false per_sample=false writes_memory=false accesses_memory=false color=true early=false sample_mask=false
#version 460
#extension GL_ARB_fragment_shader_interlock : require

layout(pixel_interlock_ordered) in;

layout(input_attachment_index = 0, binding = 0) uniform subpassInput previous;

layout(location = 0) in vec4 inColor;
layout(location = 0) out vec4 outColor;

void main() {
    beginInvocationInterlockARB();
    vec4 dst = subpassLoad(previous);
    endInvocationInterlockARB();
    outColor = inColor * inColor.a + dst * (1.0 - inColor.a);
}
